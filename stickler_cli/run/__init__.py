"""Files -> accumulated state: inputs and pairing, shards, scoring, evaluation, state files."""
