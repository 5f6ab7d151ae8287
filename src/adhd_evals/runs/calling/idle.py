"""A command that will start no call (`run` or `judge` resumed with every row already there): what
opening its calls' session (calls.open_session) reads, refuses and says, without the machinery
that makes calls (the driver, process groups, the watchdog, threads and signal handlers: about
10 ms of CPU at start-up). What that machinery guards, a call in flight, never exists here.
"""

import sys

from .budget import Budget, BudgetPolicy, open_budget
from .store import Ledger, Store
from .watchdog import owner, sweep_stale


def budget(policy: BudgetPolicy, store: Store, scope: tuple[str, str]) -> Budget:
    """The budget of `scope` as calls.open_session opens it, in the same order: the ledger beside
    the output read (refused as the session refuses it), the spend its rows and ledger hold
    counted, then the scratch folders dead runs left swept, each named on stderr."""
    ledger = Ledger.beside(store.path, owner())
    try:
        opened = open_budget(policy, store, ledger, scope)
        for line in sweep_stale():
            print(line, file=sys.stderr)
    finally:
        ledger.close()
    return opened
