#!/usr/bin/env python3
"""Record the PyTorch-profiler (Kineto) traces of examples/traces/ that gpuvp's project made itself.

Usage: python3 scripts/record-traces.py OUTDIR

Needs one CUDA GPU and PyTorch with its profiler (CUPTI); no network (the models are plain
torch.nn). Writes, in OUTDIR, for the GPU it finds (PREFIX: h100, h200, ..., from its name):

  PREFIX-cnn-train-step.json.gz       a small CNN's training step (conv, batch norm, ReLU, max
                                      pool, linear, cross entropy, SGD), batch 64 of 3x224x224
  PREFIX-transformer-infer.json.gz    a 4-layer nn.TransformerEncoder (d_model 256, 4 heads),
                                      batch 8, no_grad: one forward of 128 tokens, then 32
                                      forwards of one token (decode-shaped, no KV cache):
                                      many small kernels, launch-bound
  PREFIX-two-streams.json.gz          two torch.cuda.Streams with work on both, an event recorded
                                      on one and waited on by the other (cudaStreamWaitEvent), an
                                      event synchronize, a stream synchronize, then a device
                                      synchronize; four rounds
  PREFIX-environment.txt              the GPU, driver, CUDA, cuDNN and torch versions, nvidia-smi -q

Each case runs its step a few times unprofiled (cuDNN's and cuBLAS's set-up, the caching
allocator), then under torch.profiler.profile (CPU + CUDA activities, record_shapes off, CUDA
sync events on where this torch has them) with schedule(wait=0, warmup=1, active=1): the
profiler's own warm-up step is dropped, the second step is the trace. Every step ends with
torch.cuda.synchronize(). The Chrome trace is then gzip-compressed.
"""

import gzip
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import traceback

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, schedule

WARMUP_STEPS = 3


def gpu_prefix(name):
    low = name.lower()
    for key in ("h200", "h100", "a100", "v100", "l40s", "l4", "a10"):
        if key in low:
            return key
    return "".join(c for c in low.replace("nvidia", "") if c.isalnum()) or "gpu"


def experimental_config():
    # The `cuda_sync` records (Stream Wait Event, Event Sync, ...) that gpuvp's importer joins to
    # cudaStreamWaitEvent and cudaEventSynchronize. Off by default in PyTorch; older versions
    # lack the option.
    try:
        return torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
    except Exception as e:  # noqa: BLE001
        print("note: no enable_cuda_sync_events (%s): the traces have no cuda_sync records" % e)
        return None


def record(path, step):
    """Warm up, then profile one step of `step` and write the gzip-compressed trace to path."""
    for _ in range(WARMUP_STEPS):
        step()
        torch.cuda.synchronize()
    raw = path[: -len(".gz")]
    kwargs = dict(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        schedule=schedule(wait=0, warmup=1, active=1, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(raw),
    )
    config = experimental_config()
    if config is not None:
        kwargs["experimental_config"] = config
    with profile(**kwargs) as prof:
        for _ in range(2):
            step()
            torch.cuda.synchronize()
            prof.step()
    if not os.path.exists(raw):
        raise RuntimeError("the profiler wrote no trace to " + raw)
    with open(raw, "rb") as src, gzip.open(path, "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    json_bytes = os.path.getsize(raw)
    os.remove(raw)
    summarise(path, json_bytes)


def summarise(path, json_bytes):
    with gzip.open(path, "rt") as f:
        doc = json.load(f)
    events = doc.get("traceEvents", [])
    cats = {}
    names = {}
    streams = set()
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat", "")
        cats[cat] = cats.get(cat, 0) + 1
        if cat in ("cuda_runtime", "cuda_driver", "cuda_sync"):
            names[e.get("name")] = names.get(e.get("name"), 0) + 1
        if cat == "kernel":
            streams.add(e.get("args", {}).get("stream"))
    print("%s: %d bytes gzip, %d bytes JSON, %d events; kernels %d on streams %s"
          % (os.path.basename(path), os.path.getsize(path), json_bytes, len(events),
             cats.get("kernel", 0), sorted(s for s in streams if s is not None)))
    print("  categories: " + ", ".join("%s %d" % kv for kv in sorted(cats.items())))
    print("  runtime/driver/sync names: " + ", ".join("%s %d" % kv for kv in sorted(names.items())))


# --- 1. a small CNN's training step --------------------------------------------------------

class SmallCnn(nn.Module):
    def __init__(self, classes=100):
        super().__init__()

        def block(cin, cout):
            return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                    nn.ReLU(inplace=True)]

        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(32),
            nn.ReLU(inplace=True), nn.MaxPool2d(3, stride=2, padding=1),   # 56x56
            *block(32, 64), nn.MaxPool2d(2),                               # 28x28
            *block(64, 128), *block(128, 128), nn.MaxPool2d(2),            # 14x14
            *block(128, 256), nn.MaxPool2d(2),                             # 7x7
            nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(256, 256), nn.ReLU(inplace=True),
                                        nn.Linear(256, classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def cnn_case(dev):
    model = SmallCnn().to(dev).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(64, 3, 224, 224, device=dev)
    y = torch.randint(0, 100, (64,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    return step


# --- 2. a small transformer's inference, decode-shaped -------------------------------------

def transformer_case(dev):
    layer = nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, dropout=0.0,
                                       batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False).to(dev).eval()
    prompt = torch.randn(8, 128, 256, device=dev)
    token = torch.randn(8, 1, 256, device=dev)

    def step():
        with torch.no_grad():
            h = model(prompt)
            t = token + h[:, -1:, :]
            for _ in range(32):
                t = model(t)

    return step


# --- 3. two streams, a cross-stream wait ---------------------------------------------------

def two_streams_case(dev):
    s1 = torch.cuda.Stream(device=dev)
    s2 = torch.cuda.Stream(device=dev)
    a = torch.randn(2048, 2048, device=dev)
    b = torch.randn(2048, 2048, device=dev)
    c = torch.randn(1 << 22, device=dev)
    torch.cuda.synchronize()

    def step():
        for _ in range(4):
            done1 = torch.cuda.Event()
            with torch.cuda.stream(s1):
                p = a @ b            # stream 1: two matrix products
                p = torch.relu(p @ b)
                done1.record(s1)
            with torch.cuda.stream(s2):
                q = torch.sin(c) * 2.0   # stream 2: element-wise work, in parallel with stream 1
                q = q + torch.cos(c)
                s2.wait_event(done1)     # cudaStreamWaitEvent: stream 2 waits for stream 1's products
                r = p[:1024, :1024].sum() + q.sum()
            done1.synchronize()          # cudaEventSynchronize
            s2.synchronize()             # cudaStreamSynchronize
            # p, q, r were made on s1 and s2 and are dropped here, after both streams finished
            del p, q, r
        torch.cuda.synchronize()         # cudaDeviceSynchronize

    return step


def environment(out, prefix, dev):
    lines = []
    props = torch.cuda.get_device_properties(dev)
    lines.append("date (UTC): " + time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()))
    lines.append("GPU: %s, %d SMs, %.1f GiB, compute capability %d.%d"
                 % (props.name, props.multi_processor_count, props.total_memory / 2**30,
                    props.major, props.minor))
    lines.append("torch: " + torch.__version__)
    lines.append("CUDA (torch built with): " + str(torch.version.cuda))
    lines.append("cuDNN: " + str(torch.backends.cudnn.version()))
    lines.append("python: " + sys.version.split()[0] + ", " + platform.platform())
    try:
        q = subprocess.run(["nvidia-smi", "-q"], capture_output=True, text=True, timeout=60)
        smi = q.stdout
    except Exception as e:  # noqa: BLE001
        smi = "nvidia-smi -q failed: %s\n" % e
    for line in smi.splitlines():
        s = line.strip()
        if s.startswith(("Driver Version", "CUDA Version", "Product Name")):
            lines.append("nvidia-smi: " + s)
    text = "\n".join(lines) + "\n\n--- nvidia-smi -q ---\n" + smi
    with open(os.path.join(out, prefix + "-environment.txt"), "w") as f:
        f.write(text)
    print("\n".join(lines))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if not torch.cuda.is_available():
        sys.exit("no CUDA GPU")
    dev = torch.device("cuda", 0)
    torch.manual_seed(0)
    prefix = gpu_prefix(torch.cuda.get_device_name(dev))
    environment(out, prefix, dev)
    failed = []
    for tag, make in (("cnn-train-step", cnn_case), ("transformer-infer", transformer_case),
                      ("two-streams", two_streams_case)):
        path = os.path.join(out, "%s-%s.json.gz" % (prefix, tag))
        t0 = time.time()
        try:
            record(path, make(dev))
            print("  %.1f s" % (time.time() - t0), flush=True)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            failed.append(tag)
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    if failed:
        sys.exit("failed: " + ", ".join(failed))


if __name__ == "__main__":
    main()
