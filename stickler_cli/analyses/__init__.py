"""What the failures mean: failures, cosmetic, localisation, thresholds, slicing, list errors, roll-up."""
