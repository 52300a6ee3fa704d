#!/usr/bin/env python3
"""dflash drafter/target benchmark on real GPUs (torch, bf16, flex_attention).

A target model (a small bf16 transformer, inference only) runs on the target GPUs and produces
hidden states and next-token labels into bounded queues, one queue per drafter thread. Drafter
threads (spread round-robin over the drafter GPUs) each call torch.compile(flex_attention) and
train a small drafter on those hidden states with create_block_mask document-causal masks.

The LAST stdout line is one JSON object:
  tok_per_s (all drafter threads, after each thread's first step), per_drafter_tok_per_s,
  first_step_s (per thread: compile + first step), loss_checksum (thread 0's losses), error
  (the first failing thread's error class, or null), errors (per thread: an exception's class,
  or "Hang" for a thread that made no step for --stall-s after another thread crashed, or was still
  running at --deadline-s; their stacks go to stderr), error_messages,
  queue (depths, waits, balance), threads, gpus, versions, wall_s.
Exit codes (git bisect run): 0 every thread finished; 1 a thread crashed (the JSON is printed
first); 125 cannot test (no torch, no CUDA, too few GPUs, no flex_attention).
The same seed gives thread i the same data whatever the thread count or GPU split.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import threading
import time

T0 = time.perf_counter()


def emit(result: dict, code: int) -> None:
    print(json.dumps(result, sort_keys=True), flush=True)
    sys.exit(code)


def cannot_test(why: str, error: str) -> None:
    print(f"bench: cannot test: {why}", file=sys.stderr, flush=True)
    emit({"tok_per_s": None, "loss_checksum": None, "error": error, "skip_reason": why}, 125)


def gpu_list(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip() != ""]


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target-gpus", default="0", help="comma list of target GPU indices")
    ap.add_argument("--drafter-gpus", default="1",
                    help="comma list of drafter GPU indices (empty: share the target GPUs)")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--threads", type=int, default=None, help="total drafter threads")
    group.add_argument("--threads-per-gpu", type=int, default=None, help="drafter threads per drafter GPU")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--seq", type=int, default=2048, help="tokens per step (one packed sequence)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--queue-size", type=int, default=4, help="bound of each drafter's queue")
    ap.add_argument("--fullgraph", action="store_true", help="compile flex_attention with fullgraph=True")
    ap.add_argument("--stall-s", type=float, default=20.0,
                    help="after a thread crashed, give up on threads with no step for this long (error Hang)")
    ap.add_argument("--deadline-s", type=float, default=90.0,
                    help="give up on threads still running this long after the drafters started (error Hang)")
    args = ap.parse_args()
    args.target = gpu_list(args.target_gpus)
    args.drafter = gpu_list(args.drafter_gpus) or list(args.target)
    if args.threads is None:
        args.threads = (args.threads_per_gpu or 1) * len(args.drafter)
    if not args.target or args.threads < 1 or args.steps < 2 or args.seq % 128 != 0:
        ap.error("need a target GPU, --threads >= 1, --steps >= 2 and --seq a multiple of 128")
    return args


def main() -> None:
    args = parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        cannot_test(f"torch is not importable with {sys.executable}: {e}", "ImportError")
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError as e:
        cannot_test(f"torch {torch.__version__} has no flex_attention: {e}", "ImportError")
    if not torch.cuda.is_available():
        cannot_test(f"torch {torch.__version__} sees no CUDA GPU (CUDA_VISIBLE_DEVICES="
                    f"{os.environ.get('CUDA_VISIBLE_DEVICES')!r})", "NoGPU")
    count = torch.cuda.device_count()
    wanted = sorted(set(args.target) | set(args.drafter))
    if wanted[-1] >= count or wanted[0] < 0:
        cannot_test(f"GPUs {wanted} requested, {count} visible", "NoGPU")
    import_s = time.perf_counter() - T0

    VOCAB, D_T, LAYERS_T, H_T = 8192, 1024, 4, 16
    D, H, LAYERS = 512, 8, 2
    S, STEPS, N = args.seq, args.steps, args.threads

    # ---- target model: bf16 inference on each target GPU (same weights everywhere) ----
    def make_target(dev):
        g = torch.Generator().manual_seed(args.seed)
        def w(*shape):
            return (torch.randn(*shape, generator=g) / shape[-1] ** 0.5).to(dev, torch.bfloat16)
        return {"emb": w(VOCAB, D_T) * D_T ** 0.5,
                "layers": [(w(3 * D_T, D_T), w(D_T, D_T), w(4 * D_T, D_T), w(D_T, 4 * D_T))
                           for _ in range(LAYERS_T)],
                "head": w(VOCAB, D_T)}

    def target_forward(tm, tokens):
        x = tm["emb"][tokens].unsqueeze(0)  # [1, S, D_T]
        for wqkv, wo, w1, w2 in tm["layers"]:
            h = F.rms_norm(x, (D_T,))
            q, k, v = (h @ wqkv.T).view(1, S, 3, H_T, D_T // H_T).permute(2, 0, 3, 1, 4)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + a.transpose(1, 2).reshape(1, S, D_T) @ wo.T
            x = x + F.gelu(F.rms_norm(x, (D_T,)) @ w1.T) @ w2.T
        hidden = F.rms_norm(x, (D_T,))[0]
        labels = (hidden @ tm["head"].T).argmax(-1)
        return hidden, labels

    def sample(i, s):
        g = torch.Generator().manual_seed(args.seed * 1_000_003 + i * 10_007 + s)
        tokens = torch.randint(0, VOCAB, (S,), generator=g)
        cuts = torch.sort(torch.randint(1, S, (7,), generator=g)).values
        doc = torch.zeros(S, dtype=torch.int32)
        doc[cuts] = 1
        return tokens, torch.cumsum(doc, 0, dtype=torch.int32)

    import queue as queue_mod
    queues = [queue_mod.Queue(maxsize=args.queue_size) for _ in range(N)]
    dead = [False] * N
    stop = threading.Event()
    producer_blocked = [0.0] * len(args.target)
    producer_errors: list = [None] * len(args.target)

    def producer(j, dev):
        try:
            torch.cuda.set_device(dev)
            tm = make_target(dev)
            mine = [i for i in range(N) if i % len(args.target) == j]
            with torch.no_grad():
                for s in range(STEPS):
                    for i in mine:
                        if dead[i]:
                            continue
                        tokens, doc = sample(i, s)
                        hidden, labels = target_forward(tm, tokens.to(dev))
                        torch.cuda.current_stream().synchronize()
                        item = (tokens, doc, hidden, labels)
                        t = time.perf_counter()
                        while not stop.is_set() and not dead[i]:
                            try:
                                queues[i].put(item, timeout=0.1)
                                break
                            except queue_mod.Full:
                                pass
                        producer_blocked[j] += time.perf_counter() - t
        except BaseException as e:  # noqa: BLE001  (reported, not raised)
            producer_errors[j] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            stop.set()

    # ---- drafters ----
    res = [dict(error=None, message=None, first_step_s=None, losses=[], t_after_first=None, t_end=None,
                steps=0, wait_s=0.0, depth=[], t_progress=None, t_crash=None) for _ in range(N)]
    barrier = threading.Barrier(N)

    def drafter(i, dev):
        r = res[i]
        try:
            torch.cuda.set_device(dev)
            g = torch.Generator().manual_seed(args.seed + 7)
            def p(*shape):
                return torch.nn.Parameter((torch.randn(*shape, generator=g) / shape[-1] ** 0.5).to(dev))
            params = {"inp": p(D, D_T), "emb": p(VOCAB, D), "head": p(VOCAB, D)}
            for l in range(LAYERS):
                params.update({f"qkv{l}": p(3 * D, D), f"o{l}": p(D, D), f"w1{l}": p(4 * D, D), f"w2{l}": p(D, 4 * D)})
            opt = torch.optim.AdamW(params.values(), lr=1e-3)
            flex = torch.compile(flex_attention, fullgraph=args.fullgraph)
            doc_buf = torch.zeros(S, dtype=torch.int32, device=dev)

            def doc_causal(b, h, q_idx, kv_idx):
                return (doc_buf[q_idx] == doc_buf[kv_idx]) & (q_idx >= kv_idx)

            def step(tokens, hidden, labels):
                block_mask = create_block_mask(doc_causal, 1, None, S, S, device=dev)
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    x = (hidden.float() @ params["inp"].T + params["emb"][tokens]).unsqueeze(0)
                    for l in range(LAYERS):
                        h = F.rms_norm(x, (D,))
                        q, k, v = (h @ params[f"qkv{l}"].T).view(1, S, 3, H, D // H).permute(2, 0, 3, 1, 4)
                        a = flex(q.to(torch.bfloat16), k.to(torch.bfloat16), v.to(torch.bfloat16),
                                 block_mask=block_mask)
                        x = x + a.transpose(1, 2).reshape(1, S, D) @ params[f"o{l}"].T
                        x = x + F.gelu(F.rms_norm(x, (D,)) @ params[f"w1{l}"].T) @ params[f"w2{l}"].T
                    logits = F.rms_norm(x, (D,))[0] @ params["head"].T
                    loss = F.cross_entropy(logits.float(), labels)
                loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)
                return loss

            barrier.wait()  # all threads compile together, as the drafter job's threads do
            t_start = r["t_progress"] = time.perf_counter()
            for s in range(STEPS):
                t = time.perf_counter()
                r["depth"].append(queues[i].qsize())
                while True:
                    if stop.is_set():
                        raise RuntimeError("producer failed: " + "; ".join(e for e in producer_errors if e))
                    try:
                        tokens, doc, hidden, labels = queues[i].get(timeout=0.1)
                        break
                    except queue_mod.Empty:
                        pass
                r["wait_s"] += time.perf_counter() - t
                doc_buf.copy_(doc.to(dev, non_blocking=True))
                loss = step(tokens.to(dev, non_blocking=True), hidden.to(dev, non_blocking=True),
                            labels.to(dev, non_blocking=True))
                r["losses"].append(loss.detach())
                r["steps"] = s + 1
                r["t_progress"] = time.perf_counter()
                if s == 0:
                    torch.cuda.synchronize(dev)
                    r["t_after_first"] = time.perf_counter()
                    r["first_step_s"] = r["t_after_first"] - t_start
            torch.cuda.synchronize(dev)
            r["t_end"] = time.perf_counter()
        except BaseException as e:  # noqa: BLE001  (a crash is data: reported per thread)
            dead[i] = True
            r["t_crash"] = time.perf_counter()
            r["error"] = type(e).__name__
            r["message"] = str(e).strip().splitlines()[0] if str(e).strip() else ""
            import traceback
            print(f"bench: drafter thread {i} on cuda:{dev} failed:", file=sys.stderr)
            traceback.print_exc()
            sys.stderr.flush()
            if isinstance(e, threading.BrokenBarrierError):
                return
            barrier.abort()

    drafter_gpu = [args.drafter[i % len(args.drafter)] for i in range(N)]
    setup_s = time.perf_counter() - T0 - import_s
    producers = [threading.Thread(target=producer, args=(j, d), daemon=True) for j, d in enumerate(args.target)]
    drafters = [threading.Thread(target=drafter, args=(i, drafter_gpu[i])) for i in range(N)]
    for t in producers + drafters:
        t.start()
    # Watchdog: a crash can leave the other threads stuck inside torch.compile; a stuck thread is
    # reported as "Hang" (with every thread's stack on stderr) instead of waiting for a kill.
    t_launch = time.perf_counter()
    hung = []
    while any(t.is_alive() for t in drafters):
        time.sleep(0.2)
        now = time.perf_counter()
        alive = [i for i, t in enumerate(drafters) if t.is_alive()]
        crashes = [r["t_crash"] for r in res if r["t_crash"] is not None]
        stalled = crashes and all(now - max(res[i]["t_progress"] or t_launch, max(crashes)) > args.stall_s
                                  for i in alive)
        if alive and (stalled or now - t_launch > args.deadline_s):
            why = (f"no step for {args.stall_s:g} s after a thread crashed" if stalled
                   else f"still running {args.deadline_s:g} s after start")
            for i in alive:
                res[i]["error"], res[i]["message"] = "Hang", f"{why} (at step {res[i]['steps']})"
                dead[i] = True
                hung.append(i)
            print(f"bench: drafter threads {hung} hung ({why}); stacks:", file=sys.stderr, flush=True)
            import faulthandler
            faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
            break
    stop.set()

    ok = [r for r in res if r["error"] is None and r["t_end"] is not None]
    for i in hung:
        res[i]["t_end"] = None
    per = []
    for r in res:
        if r["error"] is None and r["t_end"] is not None:
            per.append(round((STEPS - 1) * S / (r["t_end"] - r["t_after_first"]), 1))
        else:
            per.append(None)
    if ok:
        span = max(r["t_end"] for r in ok) - min(r["t_after_first"] for r in ok)
        tok_per_s = round(len(ok) * (STEPS - 1) * S / span, 1)
    else:
        tok_per_s = None
    losses0 = [float(x) for x in res[0]["losses"]]
    checksum = hashlib.sha256(",".join(f"{x:.2f}" for x in losses0).encode()).hexdigest()[:16] if len(losses0) == STEPS else None
    steps_done = [r["steps"] for r in res]
    errors = [r["error"] for r in res]
    first_error = next((e for e in errors if e and e != "Hang"), None) or next((e for e in errors if e), None)
    depth = [round(sum(r["depth"]) / len(r["depth"]), 2) if r["depth"] else None for r in res]
    props = torch.cuda.get_device_properties(args.drafter[0])
    result = {
        "tok_per_s": tok_per_s,
        "per_drafter_tok_per_s": per,
        "first_step_s": [round(r["first_step_s"], 3) if r["first_step_s"] is not None else None for r in res],
        "max_first_step_s": max((r["first_step_s"] for r in res if r["first_step_s"] is not None), default=None),
        "loss_checksum": checksum,
        "final_loss": round(losses0[-1], 4) if losses0 else None,
        "error": first_error,
        "errors": errors,
        "error_messages": [r["message"] for r in res],
        "producer_errors": producer_errors,
        "hung_threads": hung,
        "threads": N,
        "steps": STEPS,
        "tokens_per_step": S,
        "steps_done": steps_done,
        "queue": {"size": args.queue_size,
                  "mean_depth": depth,
                  "drafter_wait_s": [round(r["wait_s"], 3) for r in res],
                  "producer_blocked_s": [round(x, 3) for x in producer_blocked],
                  "balance": round(min(steps_done) / max(steps_done), 3) if max(steps_done) else 0.0},
        "gpus": {"target": args.target, "drafter": sorted(set(drafter_gpu)), "drafter_of_thread": drafter_gpu,
                 "name": props.name},
        "versions": {"torch": torch.__version__, "cuda": torch.version.cuda,
                     "triton": _version("triton"), "python": sys.version.split()[0]},
        "caches": {"inductor": os.environ.get("TORCHINDUCTOR_CACHE_DIR"),
                   "triton": os.environ.get("TRITON_CACHE_DIR")},
        "import_s": round(import_s, 3),
        "setup_s": round(setup_s, 3),
        "wall_s": round(time.perf_counter() - T0, 3),
    }
    for r in res:
        del r["losses"]
    sys.stdout.flush()
    print(json.dumps(result, sort_keys=True), flush=True)
    os._exit(0 if first_error is None and all(e is None for e in producer_errors) else 1)


def _version(name: str):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001
        return None


if __name__ == "__main__":
    main()
