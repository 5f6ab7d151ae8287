"""The run command: its request and tasks (execute) and stopping once decided (curtail), above
calling (it pays for the calls) and deciding (it asks the sign test whether to stop)."""
