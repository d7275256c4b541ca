"""Can the model's confidence be trusted? One sentence read off AUROC and ECE, with its thresholds.

Two separate questions: does higher confidence go with right values (AUROC: ranking, what a review
queue needs), and can a confidence be read as a probability (ECE: calibration)? The thresholds are
conventions, stated in every sentence so that a reader can disagree with them:

- AUROC: at least ``AUROC_GOOD`` ranks well; below ``AUROC_WEAK`` is hardly better than chance (0.5).
- ECE: at most ``ECE_GOOD`` reads as a probability; above ``ECE_FAIR`` it does not.
"""

from __future__ import annotations

from typing import Any

AUROC_GOOD = 0.8
AUROC_WEAK = 0.6
ECE_GOOD = 0.05
ECE_FAIR = 0.15


def _value(overall: dict[str, Any], name: str) -> float | None:
    entry = overall.get(name)
    value = entry.get("value") if isinstance(entry, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def trust_sentence(overall: dict[str, Any]) -> str | None:
    """The verdict on the overall figures, or None when neither AUROC nor ECE was computed."""
    auroc, ece = _value(overall, "auroc"), _value(overall, "ece")
    has_auroc, has_ece = "auroc" in overall, ece is not None
    if not has_auroc and not has_ece:
        return None
    reasons = []
    if has_auroc:
        if auroc is None:
            reasons.append(
                "AUROC is undefined (the values with a confidence were all right or all wrong), so "
                "nothing shows whether it ranks errors first"
            )
        elif auroc >= AUROC_GOOD:
            reasons.append(
                f"AUROC {auroc:.3f} (at least {AUROC_GOOD:g}): higher confidence goes with right values, "
                "so reviewing the least confident first catches errors early"
            )
        elif auroc >= AUROC_WEAK:
            reasons.append(
                f"AUROC {auroc:.3f} (between {AUROC_WEAK:g} and {AUROC_GOOD:g}): it ranks errors first only weakly"
            )
        else:
            reasons.append(
                f"AUROC {auroc:.3f} (below {AUROC_WEAK:g}; 0.5 is chance): it does not tell right values "
                "from wrong ones"
            )
    if ece is not None:
        if ece <= ECE_GOOD:
            reasons.append(f"ECE {ece:.3f} (at most {ECE_GOOD:g}): its values read as probabilities")
        elif ece <= ECE_FAIR:
            reasons.append(
                f"ECE {ece:.3f} (between {ECE_GOOD:g} and {ECE_FAIR:g}): its values are rough probabilities only"
            )
        else:
            reasons.append(f"ECE {ece:.3f} (above {ECE_FAIR:g}): its values are not probabilities")
    ranks = auroc is not None and auroc >= AUROC_GOOD
    calibrated = ece is not None and ece <= ECE_GOOD
    if (auroc is not None and auroc < AUROC_WEAK) or (ece is not None and ece > ECE_FAIR and not ranks):
        answer = "No"  # it does not rank errors first, or it neither ranks well nor reads as a probability
    elif (ranks or not has_auroc) and (calibrated or not has_ece):
        answer = "Yes"
    else:
        answer = "In part"
    return f"Can the confidence be trusted? {answer}: " + "; ".join(reasons) + "."
