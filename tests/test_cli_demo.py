"""``bayesnb demo``: the models (one file per data set × model), the report, the fortunes."""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import bayesnb as bnb
from bayesnb import datasets
from bayesnb.cli import DEMO_FORTUNES, main
from bayesnb.cli.demo import _demo_studies

FORTUNES = all((datasets.FORTUNES_PATH / c).is_file() for c in DEMO_FORTUNES)
BAR = re.compile(r"^\[[#.]{24}\]\s+(\d+)/(\d+)\s+[\d.]+ s  \S")


def _run(argv, capsys) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


# -- demo -------------------------------------------------------------------------------------
def test_demo_quick(tmp_path, capsys):
    # Quick settings, no NUTS and no fortunes keep this under half a minute; the NUTS section
    # is tested in test_report.py, the fortunes studies below.
    models, reports = tmp_path / "models", tmp_path / "reports"
    argv = ["demo", "--quick", "--no-nuts", "--no-fortunes"]
    rc, out, err = _run([*argv, "--out-models", models, "--out-reports", reports], capsys)
    assert rc == 0, err
    index = reports / "demo" / "index.html"
    assert out.splitlines()[-1] == f"report: {index}"
    assert index.is_file()
    n_studies = 5  # digits × 3 and GDA × 2
    # One file per data set × model: the estimate is a parameter, rescored without refitting.
    assert len(list(models.glob("*.nc"))) == n_studies
    saved = bnb.load(models / "digits-multinomial.nc")
    assert saved.estimate == "mean"
    assert "bayesnb predict" in out and "--estimate map" in out and "bayesnb inspect" in out
    with (reports / "demo" / "results.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:3] == ["data", "model", "estimate"]
    assert len(rows) == 4 * n_studies + 2  # + logistic regression for the two GDA data sets
    # The progress bar: one line per step on stderr, numbered to the total, with times.
    bars = [BAR.match(line) for line in err.splitlines() if line.startswith("[")]
    assert bars and all(bars)
    assert [int(b[1]) for b in bars] == list(range(1, int(bars[0][2]) + 1))
    page = index.read_text(encoding="utf-8")
    assert 'id="sampler"' not in page and 'id="failures"' not in page
    assert "fortunes" not in page


@pytest.mark.skipif(not FORTUNES, reason="fortunes not installed: apt-get install fortunes")
def test_demo_studies_include_fortunes():
    notes: list[str] = []
    studies = _demo_studies(0, True, notes)
    assert notes == []
    fortunes = [s for s in studies if s.data.name == "fortunes"]
    assert [s.model for s in fortunes] == ["multinomial", "bernoulli"]
    data = fortunes[0].data
    assert data.kind == "text" and sorted(set(data.y)) == DEMO_FORTUNES
    assert data.X.shape[1] == len(data.feature_names) and "computer" in set(data.feature_names)
    # The few-labels section runs on the fortunes' multinomial study, the text study it ranks.
    from bayesnb.report import ReportBuilder

    steps = ReportBuilder(studies).steps
    few = [s for s in steps if s.startswith("few labels")]
    assert few == ["few labels: fortunes · multinomial"]


@pytest.mark.parametrize("installed", [False, True])
def test_demo_without_fortunes(tmp_path, monkeypatch, installed):
    folder = tmp_path / "fortunes"
    if installed:  # like Debian's fortunes-min: a folder without the demo's categories
        folder.mkdir()
        (folder / "fortunes").write_text("One.\n%\nTwo.\n")
    monkeypatch.setattr(datasets, "FORTUNES_PATH", folder)
    notes: list[str] = []
    studies = _demo_studies(0, True, notes)
    assert len(notes) == 1 and "fortunes skipped" in notes[0]
    assert ("unknown category" if installed else "apt-get install fortunes") in notes[0]
    assert {s.data.name for s in studies} == {"digits", "breast_cancer", "wine"}


def test_demo_fortunes_folder_from_the_environment(tmp_path, monkeypatch):
    # BAYESNB_FORTUNES wins over the Debian path: a missing folder gives one line on how to
    # get the fortunes, a folder of the demo's categories gives the real-text studies.
    monkeypatch.setenv(datasets.FORTUNES_ENV, str(tmp_path / "missing"))
    notes: list[str] = []
    _demo_studies(0, True, notes)
    assert len(notes) == 1 and "\n" not in notes[0]
    assert "sudo apt-get install fortunes" in notes[0] and datasets.FORTUNES_ENV in notes[0]
    assert str(tmp_path / "missing") in notes[0]
    folder = tmp_path / "mine"
    folder.mkdir()
    for cat in DEMO_FORTUNES:
        (folder / cat).write_text(f"{cat} one about {cat}.\n%\n{cat} two.\n%\nAnd three.\n")
    monkeypatch.setenv(datasets.FORTUNES_ENV, str(folder))
    notes = []
    studies = _demo_studies(0, True, notes)
    assert notes == []
    assert [s.model for s in studies if s.data.name == "fortunes"] == ["multinomial", "bernoulli"]


def test_make_demo_says_how_to_get_the_fortunes(tmp_path):
    make = Path(__file__).parents[1] / "Makefile"
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    env = {**os.environ, "BAYESNB_FORTUNES": str(tmp_path / "missing")}
    done = subprocess.run(
        ["make", "-s", "-f", str(make), "fortunes"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"note: no fortunes at {tmp_path / 'missing'}, so the demo has no real-text study: "
        "install them with 'sudo apt-get install fortunes' (Debian/Ubuntu) or set "
        "BAYESNB_FORTUNES to a folder of fortune files"
    ]
    env["BAYESNB_FORTUNES"] = str(tmp_path)  # present: nothing to say
    done = subprocess.run(
        ["make", "-s", "-f", str(make), "fortunes"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and done.stderr == ""
