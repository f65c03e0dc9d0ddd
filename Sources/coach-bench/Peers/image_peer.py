"""The peer for Coach's image-classifier head: scikit-learn's LogisticRegression(C=1) on the very
same EfficientNet-Lite0 features (1280 per image, computed by Coach and passed in).

Usage: image_peer.py FEATURES.json, with {"train": [{"label": str, "features": [...]}], "test": [...]}.
Prints {"accuracy": a, "seconds": s}.
"""
import json
import sys
import time

import numpy as np
from sklearn.linear_model import LogisticRegression

data = json.load(open(sys.argv[1]))
x_train = np.array([r["features"] for r in data["train"]], dtype=np.float64)
y_train = np.array([r["label"] for r in data["train"]])
x_test = np.array([r["features"] for r in data["test"]], dtype=np.float64)
y_test = np.array([r["label"] for r in data["test"]])
start = time.perf_counter()
model = LogisticRegression(C=1, max_iter=5000).fit(x_train, y_train)
print(json.dumps({"accuracy": float((model.predict(x_test) == y_test).mean()), "seconds": time.perf_counter() - start}))
