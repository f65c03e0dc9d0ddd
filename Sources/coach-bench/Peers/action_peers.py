"""The peers for Coach's action classifier: aeon's MiniRocket and MultiRocket classifiers
(10,000 kernels, their default RidgeClassifierCV), each clip resampled to one fixed length.

Usage: action_peers.py SPLIT.json SEED...
SPLIT.json: {"train": [{"label": str, "frames": [[v, ...], ...]}], "test": [...]}, one value per
channel and frame (null = joint not detected). Prints one JSON line per seed:
{"seed": s, "minirocket": accuracy, "multirocket": accuracy, "seconds": {...}}.
"""
import json
import sys
import time

import numpy as np
from aeon.classification.convolution_based import MiniRocketClassifier, MultiRocketClassifier


def resample(frames, length):
    x = np.array([[np.nan if v is None else v for v in frame] for frame in frames], dtype=np.float64)  # [T, C]
    for c in range(x.shape[1]):
        column = x[:, c]
        good = ~np.isnan(column)
        if good.sum() == 0:
            x[:, c] = 0
        elif good.sum() < len(column):
            x[:, c] = np.interp(np.arange(len(column)), np.flatnonzero(good), column[good])
    source = np.linspace(0, 1, len(x)) if len(x) > 1 else np.zeros(1)
    target = np.linspace(0, 1, length)
    if len(x) == 1:
        return np.repeat(x.T, length, axis=1)
    return np.stack([np.interp(target, source, x[:, c]) for c in range(x.shape[1])])  # [C, length]


def main():
    split = json.load(open(sys.argv[1]))
    seeds = [int(s) for s in sys.argv[2:]] or [0]
    length = int(np.median([len(c["frames"]) for c in split["train"]]))
    length = max(length, 9)
    train = np.stack([resample(c["frames"], length) for c in split["train"]])
    test = np.stack([resample(c["frames"], length) for c in split["test"]])
    y_train = np.array([c["label"] for c in split["train"]])
    y_test = np.array([c["label"] for c in split["test"]])
    for seed in seeds:
        result = {"seed": seed, "seconds": {}}
        for name, make in (("minirocket", MiniRocketClassifier), ("multirocket", MultiRocketClassifier)):
            start = time.perf_counter()
            model = make(n_kernels=10000, random_state=seed)
            model.fit(train, y_train)
            result[name] = float((model.predict(test) == y_test).mean())
            result["seconds"][name] = time.perf_counter() - start
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
