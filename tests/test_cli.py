"""The ``bayesnb`` command line."""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bayesnb import datasets
from bayesnb.cli import DEMO_FORTUNES, main

ROW = re.compile(
    r"^(?P<data>digits|fortunes)\s+(?P<model>\w+)\s+(?P<estimate>mle|map|mean|bayes)\s+"
    r"(?P<accuracy>\d\.\d+)\s+(?P<log_loss>\d+\.\d+)\s+(?P<brier>\d\.\d+)\s+"
    r"(?P<lpd>-inf|-?\d+\.\d)\s+[\d.]+\s+[\d.]+$"
)
METRICS = ("accuracy", "log_loss", "brier", "lpd")


def _table(out: str) -> dict[tuple[str, str, str], dict[str, float]]:
    rows = {}
    for line in out.splitlines():
        m = ROW.match(line)
        if m:
            key = (m["data"], m["model"], m["estimate"])
            assert key not in rows, f"duplicate row {key}"
            rows[key] = {k: float(m[k]) for k in METRICS}
    return rows


def _run_demo(tmp_path, capsys) -> tuple[dict, str]:
    rc = main(
        ["demo", "--out-models", str(tmp_path / "models"), "--out-reports", str(tmp_path / "rep")]
    )
    assert rc == 0
    out = capsys.readouterr().out
    return _table(out), out


def test_demo_table(tmp_path, capsys):
    rows, _ = _run_demo(tmp_path, capsys)
    digits = {k: v for k, v in rows.items() if k[0] == "digits"}
    assert len(digits) == 12  # 3 models x 4 estimates
    assert all(0 <= r["accuracy"] <= 1 and r["log_loss"] >= 0 for r in rows.values())
    for model in ("bernoulli", "multinomial", "categorical"):
        assert rows["digits", model, "mean"]["accuracy"] > 0.85
        # Smoothed estimates never give a true class probability 0.
        assert np.isfinite(rows["digits", model, "mean"]["lpd"])
    # MAP under Dirichlet(2) is add-one smoothing, the posterior mean under Dirichlet(1).
    assert rows["digits", "multinomial", "map"] == rows["digits", "multinomial", "mean"]
    # Unsmoothed, some test digit has a pixel value its class never showed in training.
    assert rows["digits", "categorical", "mle"]["lpd"] == -np.inf
    with (tmp_path / "rep" / "demo" / "results.csv").open() as fh:
        written = list(csv.DictReader(fh))
    assert len(written) == len(rows)
    assert {(r["data"], r["model"], r["estimate"]) for r in written} == set(rows)
    assert list(written[0])[:3] == ["data", "model", "estimate"]
    models = sorted(p.name for p in (tmp_path / "models").iterdir())
    assert len(models) == len(rows) and "digits-multinomial-bayes.nc" in models


@pytest.mark.skipif(
    not all((datasets.FORTUNES_PATH / c).is_file() for c in DEMO_FORTUNES),
    reason=f"fortunes ({', '.join(DEMO_FORTUNES)}) not installed: apt-get install fortunes",
)
def test_demo_includes_fortunes(tmp_path, capsys):
    rows, _ = _run_demo(tmp_path, capsys)
    assert len(rows) == 16
    assert rows["fortunes", "multinomial", "mean"]["accuracy"] > 0.5


@pytest.mark.parametrize("installed", [False, True])
def test_demo_without_fortunes(tmp_path, capsys, monkeypatch, installed):
    folder = tmp_path / "fortunes"
    if installed:  # like Debian's fortunes-min: a folder without the demo's categories
        folder.mkdir()
        (folder / "fortunes").write_text("One.\n%\nTwo.\n")
    monkeypatch.setattr(datasets, "FORTUNES_PATH", folder)
    rows, out = _run_demo(tmp_path, capsys)
    assert "note: fortunes skipped" in out
    assert ("unknown category" if installed else "apt-get install fortunes") in out
    assert len(rows) == 12 and all(k[0] == "digits" for k in rows)


def test_help_exits_zero(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    assert "demo" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--help"])
    assert exc.value.code == 0
    assert "--out-models" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["frobnicate"], [], ["demo", "--no-such-flag"]])
def test_usage_errors_exit_two(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage: bayesnb" in capsys.readouterr().err


def test_console_script_help():
    script = Path(sys.executable).parent / "bayesnb"
    if not script.exists():
        pytest.skip(f"console script not installed next to {sys.executable}")
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "demo" in done.stdout
