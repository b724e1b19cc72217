"""Compile once, train on another architecture (docs/deploy.md, "On another architecture").

On this machine: `rxt build --trainer --target aarch64-linux-gnu` makes the seed MLP's trainer
file for 64-bit Arm, and the runtime alone is cross-built with Debian's g++-aarch64-linux-gnu
(cmake/aarch64-linux-gnu.cmake, RXT_RUNTIME_ONLY). Under qemu-aarch64 the C program
train_from_file trains 20 steps from that file; the same program built for this machine trains
20 steps from the same model built for it. The losses must agree within 1e-5 relative, and each
trainer file must be refused, naming both architectures, by the other machine's runtime.

Exits 77 (skipped), saying what is missing, without the cross compiler or qemu-user.
"""
import argparse
import gzip
import os
import platform
import shutil
import subprocess
import sys

STEPS, BATCH = 20, 64
TOLERANCE = 1e-5


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"FAILED ({result.returncode}): {' '.join(command)}\n{result.stdout}{result.stderr}")
    return result.stdout


def losses(output):
    values = [float(line.split()[2]) for line in output.splitlines() if line.startswith("loss ")]
    if len(values) != STEPS:
        sys.exit(f"expected {STEPS} losses, got {len(values)}:\n{output}")
    return values


def refused(command, expected):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode == 0 or expected not in result.stderr:
        sys.exit(f"expected a refusal naming '{expected}' from {' '.join(command)}, got "
                 f"{result.returncode}: {result.stdout}{result.stderr}")


def main():
    parser = argparse.ArgumentParser()
    for name in ("source", "work", "rxt", "host-program", "model", "data", "generator"):
        parser.add_argument("--" + name, required=True)
    args = parser.parse_args()

    if platform.machine() != "x86_64":
        print(f"SKIPPED: this test cross-builds from x86_64, and this machine is {platform.machine()}")
        return 77
    missing = [tool for tool in ("aarch64-linux-gnu-gcc", "aarch64-linux-gnu-g++", "qemu-aarch64")
               if shutil.which(tool) is None]
    if missing:
        print(f"SKIPPED: {', '.join(missing)} not on PATH (Debian: g++-aarch64-linux-gnu, qemu-user; "
              "scripts/bootstrap.sh installs them)")
        return 77
    sysroot = "/usr/aarch64-linux-gnu"

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    build = os.path.join(args.work, "build")
    run(["cmake", "-S", args.source, "-B", build, "-G", args.generator, "-DCMAKE_BUILD_TYPE=Release",
         f"-DCMAKE_TOOLCHAIN_FILE={args.source}/cmake/aarch64-linux-gnu.cmake", "-DRXT_RUNTIME_ONLY=ON",
         "-DRXT_WERROR=ON"])
    run(["cmake", "--build", build, "--target", "rxt_train_from_file"])
    arm_program = os.path.join(build, "rxt_train_from_file")
    library = os.path.join(build, "lib", "librxt_runtime.so")

    # The same model, built for each machine (the same seed: the same starting values).
    arm_trainer = os.path.join(args.work, "mlp-aarch64.rxtt")
    host_trainer = os.path.join(args.work, "mlp-host.rxtt")
    run([args.rxt, "build", args.model, "--trainer", "--target", "aarch64-linux-gnu", "-o", arm_trainer])
    run([args.rxt, "build", args.model, "--trainer", "--library", "none", "-o", host_trainer])

    # The Arm program reads IDX files decompressed here (it has no zlib).
    images, labels = (os.path.join(args.data, f"train-{kind}-idx{dims}-ubyte.gz")
                      for kind, dims in (("images", 3), ("labels", 1)))
    raw = []
    for path in (images, labels):
        target = os.path.join(args.work, os.path.basename(path)[:-3])
        with gzip.open(path, "rb") as source, open(target, "wb") as out:
            shutil.copyfileobj(source, out)
        raw.append(target)

    count = str(STEPS * BATCH)
    qemu = ["qemu-aarch64", "-L", sysroot]
    arm = losses(run(qemu + [arm_program, arm_trainer, raw[0], raw[1], count, str(BATCH),
                             os.path.join(args.work, "aarch64.safetensors"), "--losses", "--no-compiler"]))
    host = losses(run([args.host_program, host_trainer, images, labels, count, str(BATCH),
                       os.path.join(args.work, "host.safetensors"), "--losses", "--no-compiler"]))
    worst = max(abs(a - h) / max(abs(h), 1e-30) for a, h in zip(arm, host))
    for step, (a, h) in enumerate(zip(arm, host)):
        print(f"step {step:2d}: aarch64 {a:.9g}  x86_64 {h:.9g}")
    if worst > TOLERANCE:
        sys.exit(f"the losses differ by {worst:.3g} relative (at most {TOLERANCE} allowed)")
    with open(os.path.join(args.work, "aarch64.safetensors"), "rb") as a, \
            open(os.path.join(args.work, "host.safetensors"), "rb") as h:
        same = a.read() == h.read()
    print(f"largest relative difference {worst:.3g}; final parameters "
          f"{'bit-identical' if same else 'not bit-identical'}")
    print(f"sizes: librxt_runtime.so for aarch64 {os.path.getsize(os.path.realpath(library))} bytes, "
          f"trainer file {os.path.getsize(arm_trainer)} bytes (this machine's: {os.path.getsize(host_trainer)})")

    # Each machine's runtime refuses the other's trainer file, naming both architectures.
    refused(qemu + [arm_program, host_trainer, raw[0], raw[1], count, str(BATCH),
                    os.path.join(args.work, "x.safetensors")], "built for x86_64, and this machine is aarch64")
    refused([args.host_program, arm_trainer, images, labels, count, str(BATCH),
             os.path.join(args.work, "x.safetensors")], "built for aarch64, and this machine is x86_64")
    # A shared library of the other architecture offered as a plugin: the same message.
    refused([args.rxt, "plugins", "--no-search-path", "--plugin", os.path.realpath(library)],
            "built for aarch64, and this machine is x86_64")
    return 0


if __name__ == "__main__":
    sys.exit(main())
