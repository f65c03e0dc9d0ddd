"""The peer for Coach's image-classifier head: scikit-learn's LogisticRegression(C=1) on the very
same EfficientNet-Lite0 features (computed by Coach and passed in).

Usage: image_peer.py JOBS.json, with {"features": PATH, "width": d, "labels": [str, …],
"jobs": [{"train": [row, …], "test": [row, …]}, …]}; PATH holds the features as little-endian
float32, one row of d values per label. Fits one model per job and prints
{"accuracies": [a, …], "seconds": [s, …]}.
"""
import json
import sys
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

# One or two photos of each of 40 people (orl-faces) are fewer than two rows per class, which
# scikit-learn flags as a possible regression target at every fit; the labels are classes.
warnings.filterwarnings("ignore", message="The number of unique classes is greater than 50%")

spec = json.load(open(sys.argv[1]))
features = np.fromfile(spec["features"], dtype="<f4").reshape(len(spec["labels"]), spec["width"]).astype(np.float64)
labels = np.array(spec["labels"])
accuracies, seconds = [], []
for job in spec["jobs"]:
    train, test = np.array(job["train"]), np.array(job["test"])
    start = time.perf_counter()
    model = LogisticRegression(C=1, max_iter=5000).fit(features[train], labels[train])
    seconds.append(time.perf_counter() - start)
    accuracies.append(float((model.predict(features[test]) == labels[test]).mean()))
print(json.dumps({"accuracies": accuracies, "seconds": seconds}))
