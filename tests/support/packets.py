"""Generated document packets (ground truth and a perturbed prediction), for the split tests."""

from __future__ import annotations

import random
from typing import Any

CLASSES = ("invoice", "receipt", "form", "letter")


def _split(rng: random.Random, pages: list[int]) -> list[dict[str, Any]]:
    """Pages dealt into sections: mostly runs of consecutive pages, sometimes interleaved, each in a
    shuffled or kept order, each with a class."""
    sections: list[list[int]] = []
    if rng.random() < 0.2:  # interleaved documents
        count = rng.randint(1, 3)
        sections = [[] for _ in range(count)]
        for page in pages:
            sections[rng.randrange(count)].append(page)
    else:
        start = 0
        while start < len(pages):
            size = rng.randint(1, 4)
            sections.append(pages[start : start + size])
            start += size
    return [{"document_class": rng.choice(CLASSES), "page_indices": s} for s in sections if s]


def packet(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(ground-truth sections, predicted sections) of one packet of 1 to 12 pages."""
    pages = list(range(rng.randint(1, 12)))
    gt = _split(rng, pages)
    roll = rng.random()
    if roll < 0.15:  # perfect
        pred = [dict(s, page_indices=list(s["page_indices"])) for s in gt]
    elif roll < 0.25:  # nothing predicted
        pred = []
    else:
        kept = [p for p in pages if rng.random() > 0.1]  # some pages dropped
        if rng.random() < 0.2:
            kept.append(len(pages))  # a page the ground truth lacks
        if rng.random() < 0.5:  # the ground truth's documents, perturbed
            pred = []
            for s in gt:
                own = [p for p in s["page_indices"] if p in kept]
                if rng.random() < 0.3:
                    rng.shuffle(own)
                cls = s["document_class"] if rng.random() < 0.8 else rng.choice(CLASSES)
                pred.append({"document_class": cls, "page_indices": own})
            placed = {p for s in pred for p in s["page_indices"]}
            extra = [p for p in kept if p not in placed]
            if extra:
                pred.append({"document_class": rng.choice(CLASSES), "page_indices": extra})
        else:
            pred = _split(rng, kept)
    return gt, pred


def library_rows(gt: list[dict[str, Any]], pred: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The page table the library's evaluate_packet takes for the pages both sides name (group ids
    as strings: the library fails on integer ids with strict clustering, mixing them with its own
    string error ids)."""
    placed = {p: (f"p{k}", n, s["document_class"]) for k, s in enumerate(pred) for n, p in enumerate(s["page_indices"])}
    rows = []
    for k, s in enumerate(gt):
        for n, p in enumerate(s["page_indices"]):
            if p in placed:
                group, number, label = placed[p]
                rows.append(
                    {
                        "group_id": f"g{k}",
                        "group_id_predicted": group,
                        "page_number": n,
                        "page_number_predicted": number,
                        "class_label": s["document_class"],
                        "class_label_predicted": label,
                    }
                )
    return rows
