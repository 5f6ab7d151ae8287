"""promptfoo_cli's remembered runs are named by everything the echo provider's results depend
on: a fixture that changes in any byte, another promptfoo build, another command or another
PROMPTFOO_ variable run promptfoo again; the run's own output and config folders do not count."""

from __future__ import annotations

import os
from pathlib import Path

import promptfoo_cli


def _folder(root: Path) -> tuple[Path, Path]:
    main = root / "main.js"
    main.write_text("// promptfoo")
    config = root / "fixture" / "promptfooconfig.yaml"
    (root / "fixture" / "prompts").mkdir(parents=True)
    config.write_text("prompts: [file://prompts/p.txt]\n")
    (root / "fixture" / "prompts" / "p.txt").write_text("Hello {{name}}\n")
    return main, config


def _command(work: Path) -> list[str]:
    return ["node", "main.js", "eval", "-c", "promptfooconfig.yaml", "-o", str(work / promptfoo_cli.OUTPUT)]


ENV = {"PROMPTFOO_DISABLE_TELEMETRY": "1", "PATH": "/bin"}


def test_the_digest_changes_with_every_input_and_only_with_them(tmp_path: Path) -> None:
    main, config = _folder(tmp_path)
    first = promptfoo_cli._digest(
        main, config, _command(tmp_path / "a"), {**ENV, "PROMPTFOO_CONFIG_DIR": "/a"}
    )
    # where the run writes, its config dir, a non-PROMPTFOO variable and its own output: the same
    (config.parent / promptfoo_cli.OUTPUT).write_text("{}")
    (config.parent / promptfoo_cli.HOME).mkdir()
    (config.parent / promptfoo_cli.HOME / "db.sqlite").write_text("x")
    same = promptfoo_cli._digest(
        main, config, _command(tmp_path / "b"), {**ENV, "PROMPTFOO_CONFIG_DIR": "/b", "PATH": "/usr/bin"}
    )
    assert same == first
    # one byte of a file the config reads
    (config.parent / "prompts" / "p.txt").write_text("Hello {{name}}!\n")
    assert promptfoo_cli._digest(main, config, _command(tmp_path), ENV) != first
    (config.parent / "prompts" / "p.txt").write_text("Hello {{name}}\n")
    assert promptfoo_cli._digest(main, config, _command(tmp_path), ENV) == first
    # a PROMPTFOO_ variable, the command, promptfoo's main.js
    assert promptfoo_cli._digest(main, config, _command(tmp_path), {**ENV, "PROMPTFOO_X": "1"}) != first
    assert promptfoo_cli._digest(main, config, [*_command(tmp_path), "--no-cache"], ENV) != first
    main.write_text("// another promptfoo build")
    os.utime(main, ns=(1, 1))
    assert promptfoo_cli._digest(main, config, _command(tmp_path), ENV) != first
