"""fauxtransformers: a CPU stand-in for transformers in the dflash-cu130 fixture. It is NOT transformers.

Every version (5.6.0, 5.7.0, 5.8.1) behaves identically: the incident's downgrade 5.8.1 -> 5.6.0
was a red herring. It supplies the target model's "hidden states" the drafter trains on.
"""
import random

from ._version import VERSION

__version__ = VERSION


def hidden_state_batches(seed, stream, tokens, dim, count):
    """Returns `count` deterministic (inputs, targets) batches of tokens*dim floats for one stream."""
    rng = random.Random(seed * 1000003 + stream)
    teacher_w = [rng.uniform(0.5, 1.5) for _ in range(dim)]
    teacher_b = [rng.uniform(-0.2, 0.2) for _ in range(dim)]
    batches = []
    for _ in range(count):
        xs = [rng.uniform(-1.0, 1.0) for _ in range(tokens * dim)]
        ts = []
        for i, v in enumerate(xs):
            h = v * teacher_w[i % dim] + teacher_b[i % dim]
            ts.append(h if h > 0.0 else 0.0)
        batches.append((xs, ts))
    return batches
