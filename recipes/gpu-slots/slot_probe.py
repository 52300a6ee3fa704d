"""GPU slot probe: a fixed-seed bf16 matmul loop on the GPU envbisect's slot names.

Prints one JSON line: the metric (matmuls per second), which GPU ran it (index and UUID), and when
(start and end, epoch seconds), so a run with --slots can be checked for two things: each slot on its
own GPU, and runs overlapping in time. PROBE_WORK (1 or 2) multiplies the work done per counted
matmul: the planted cause of this recipe's bad state.
"""
import argparse
import json
import os
import time

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--gpu", type=int, required=True)
parser.add_argument("--iters", type=int, default=3000)
parser.add_argument("--seed", type=int, default=1234)
args = parser.parse_args()

start = time.time()
torch.manual_seed(args.seed)
device = torch.device(f"cuda:{args.gpu}")
work = int(os.environ.get("PROBE_WORK", "1"))
a = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16)
b = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16)
c = a @ b
torch.cuda.synchronize(device)
t0 = time.perf_counter()
for _ in range(args.iters):
    for _ in range(work):
        c = a @ b
torch.cuda.synchronize(device)
elapsed = time.perf_counter() - t0
props = torch.cuda.get_device_properties(device)
print(json.dumps({
    "matmuls_per_s": args.iters / elapsed,
    "checksum": f"{float(c.float().sum().item()):.6e}",
    "gpu": args.gpu,
    "gpu_uuid": str(getattr(props, "uuid", "")),
    "gpu_name": props.name,
    "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES", ""),
    "start": start,
    "end": time.time(),
}))
