"""The core layer: puzzles, rules, index conventions, the model, clause encoding, propagation and
verification. It imports no other layer of the project."""
