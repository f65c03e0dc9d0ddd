"""Google's own TFLite runtime (ai-edge-litert) on a raw float32 input: the reference Coach's
imported MediaPipe models are checked against, and the peer `coach-bench --only pose-models` times.

usage: litert_reference.py MODEL.tflite INPUT.f32 OUTPUT_PREFIX [--threads N] [--repeat N] [--reference-kernels]
(--reference-kernels: TFLite's plain reference kernels instead of XNNPACK.)
Writes OUTPUT_PREFIX.<i>.f32 for each output (in the model's output order) and prints one JSON
line: {"outputs": [[shape], ...], "milliseconds": median per run}.
"""
import json
import sys
import time

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType


def main():
    args = sys.argv[1:]
    threads, repeat = 1, 1
    if "--threads" in args:
        i = args.index("--threads"); threads = int(args[i + 1]); del args[i:i + 2]
    if "--repeat" in args:
        i = args.index("--repeat"); repeat = int(args[i + 1]); del args[i:i + 2]
    resolver = OpResolverType.AUTO
    if "--reference-kernels" in args:
        args.remove("--reference-kernels"); resolver = OpResolverType.BUILTIN_REF
    model, source, prefix = args
    interpreter = Interpreter(model_path=model, num_threads=threads, experimental_op_resolver_type=resolver)
    interpreter.allocate_tensors()
    detail = interpreter.get_input_details()[0]
    data = np.fromfile(source, dtype=np.float32).reshape(detail["shape"])
    times = []
    for _ in range(max(1, repeat)):
        interpreter.set_tensor(detail["index"], data)
        start = time.perf_counter()
        interpreter.invoke()
        times.append((time.perf_counter() - start) * 1000)
    shapes = []
    for i, out in enumerate(interpreter.get_output_details()):
        value = interpreter.get_tensor(out["index"]).astype(np.float32)
        value.tofile(f"{prefix}.{i}.f32")
        shapes.append(list(value.shape))
    print(json.dumps({"outputs": shapes, "milliseconds": float(np.median(times))}))


if __name__ == "__main__":
    main()
