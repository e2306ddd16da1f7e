"""``bayesnb inspect``: what a saved model holds, printed from the file alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import bayesnb as bnb
from bayesnb.cli import main
from bayesnb.families import BUILTIN, family_of

GOLDEN = Path(__file__).parent / "data" / "golden"
# Files saved by earlier code, one or more per family (they also check that old files inspect).
FILES = sorted(GOLDEN.glob("*.nc"))


def _inspect(path, capsys, *extra) -> list[str]:
    rc = main(["inspect", str(path), *map(str, extra)])
    out, err = capsys.readouterr()
    assert rc == 0 and err == "", err
    return out.splitlines()


def _line(lines: list[str], start: str) -> str:
    found = [line for line in lines if line.startswith(start)]
    assert len(found) == 1, (start, lines)
    return found[0]


def test_golden_files_cover_every_family():
    families = {family_of(bnb.load(f)).name for f in FILES}
    assert families == set(BUILTIN)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_inspect_every_family(path, capsys):
    est = bnb.load(path)
    lines = _inspect(path, capsys)
    family = family_of(est)
    assert lines[0] == f"model: {type(est).__name__} (family {family.name}) from {path}"
    assert lines[1] == "saved by: bayesnb 0.1.0, format_version 1"
    params = _line(lines, "parameters: ")
    for name, value in est.get_params(deep=False).items():
        assert f"{name}={value!r}" in params
    classes = list(est.classes_)
    assert _line(lines, "classes ") == f"classes ({len(classes)}): " + ", ".join(map(str, classes))
    assert _line(lines, "features: ").startswith(f"features: {est.n_features_in_:,} ")
    assert _line(lines, "log evidence: ") == f"log evidence: {est.log_evidence():.6g}"
    start = lines.index("training statistics:")
    counts = est.class_count_
    per_class = ", ".join(f"{c}: {n:,.0f}" for c, n in zip(classes, counts, strict=True))
    assert lines[start + 1] == f"  documents: {counts.sum():,.0f} ({per_class})"
    for what, value in family.inspect_statistics(est):
        assert f"  {what}: {value}" in lines
    scoring = lines[-1]
    assert scoring.startswith(f"scoring: estimate={est.estimate!r}; the estimate is a parameter")
    assert f"bayesnb predict {path} --data SPEC --estimate" in scoring


def test_family_statistics_numbers(capsys):
    est = bnb.load(GOLDEN / "multinomial_unk.nc")
    lines = _inspect(GOLDEN / "multinomial_unk.nc", capsys)
    tokens = est.feature_count_.sum(axis=1)
    assert _line(lines, "  tokens: ") == "  tokens: {:,.0f} ({})".format(
        tokens.sum(), ", ".join(f"{c}: {t:,.0f}" for c, t in zip(est.classes_, tokens, strict=True))
    )
    pooled = int((est.feature_count_.sum(axis=0) == 0).sum())
    assert _line(lines, "  columns pooled into UNK: ") == (
        f"  columns pooled into UNK: {pooled:,} (never seen)"
    )
    gda = bnb.load(GOLDEN / "gda_shared.nc")
    lines = _inspect(GOLDEN / "gda_shared.nc", capsys)
    assert "  covariance: shared" in lines
    # GDA has no alpha (its prior is Normal-Inverse-Wishart), only the class prior's.
    assert not [x for x in lines if x.startswith("alpha_")] and "class_alpha_: 1 (fixed)" in lines
    means = gda._stats.shift[0] + gda._stats.offset[:, 0]
    assert _line(lines, "  class means of x0: ") == "  class means of x0: " + ", ".join(
        f"{c}: {m:.4g}" for c, m in zip(gda.classes_, means, strict=True)
    )
    lines = _inspect(GOLDEN / "multinomial_evidence.nc", capsys)
    alpha = bnb.load(GOLDEN / "multinomial_evidence.nc").alpha_
    assert f"alpha_: {float(alpha):.6g} (learned by maximising the evidence)" in lines


def _corpus(root: Path) -> Path:
    rng = np.random.default_rng(0)
    words = {
        "spam": "win money prize free offer click cash".split(),
        "ham": "meeting lunch report project team notes".split(),
    }
    for i in range(40):
        label = ("spam", "ham")[i % 2]
        (root / label).mkdir(parents=True, exist_ok=True)
        text = " ".join(rng.choice(words[label] + ["the", "and"], size=8))
        (root / label / f"{i}.txt").write_text(text)
    return root


def test_inspect_text_model_prints_words(tmp_path, capsys):
    corpus = _corpus(tmp_path / "mail")
    model = tmp_path / "mail.nc"
    assert main(["fit", "multinomial", "--data", str(corpus), "--out", str(model)]) == 0
    capsys.readouterr()
    lines = _inspect(model, capsys, "--top", 3)
    assert _line(lines, "features: ") == (
        "features: 15 words: and, cash, click, free, lunch, meeting, ... (9 more)"
    )
    informative = lines[lines.index(next(x for x in lines if x.startswith("most inform"))) + 1 :]
    spam = next(x for x in informative if x.startswith("  spam vs ham: "))
    table = bnb.most_informative_features(bnb.load(model), n=3, classes=[("spam", "ham")])
    assert spam == "  spam vs ham: " + ", ".join(
        f"{r.feature} ({r.mean:.2f} ± {r.sd:.2f})" for r in table.itertuples()
    )
    assert set(table["feature"]) <= {"win", "money", "prize", "free", "offer", "click", "cash"}
    # The summary rows are those words' probabilities, named by class and word.
    word = table["feature"].iloc[0]
    assert any(x.startswith(f"  feature_prob[spam, {word}]") for x in lines)


def test_inspect_hashed_model(tmp_path, capsys):
    corpus = _corpus(tmp_path / "mail")
    model = tmp_path / "hashed.nc"
    argv = ["fit", "bernoulli", "--data", str(corpus), "--hash-features", "256", "--out"]
    assert main([*argv, str(model)]) == 0
    capsys.readouterr()
    lines = _inspect(model, capsys)
    features = _line(lines, "features: ")
    assert features.startswith("features: 256 hashed columns (HashingVectorizer: ")
    assert "n_features=256" in features and "alternate_sign=False" in features
    assert _line(lines, "  features present per document: ").startswith(
        "  features present per document: ham: "
    )


def test_inspect_bad_options(tmp_path, capsys):
    rc = main(["inspect", str(GOLDEN / "poisson.nc"), "--top", "0"])
    err = capsys.readouterr().err
    assert rc == 2 and err.strip() == "bayesnb: error: --top must be an integer >= 1, got 0"
