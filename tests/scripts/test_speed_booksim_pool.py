"""scripts/speed-booksim-pool: pooled medians and ratios of several runs, and
its refusals (run by ctest: speed_booksim_pool)."""
import json
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      "scripts", "speed-booksim-pool")


def run_dir(root, name, booksim, nwnsim, commit="abc"):
    d = os.path.join(root, name)
    os.makedirs(d)
    rounds = lambda rates: [{"cycles_per_second": r} for r in rates]
    report = {"nwnsim_commit": commit, "booksim_commit": "b1", "rounds_done": len(booksim),
              "cases": {"single": {"runs": {"booksim": rounds(booksim), "nwnsim-1t": rounds(nwnsim)}}}}
    with open(os.path.join(d, "speed.json"), "w") as f:
        json.dump(report, f)
    return d


def pool(*dirs):
    return subprocess.run([sys.executable, SCRIPT, *dirs], capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory() as root:
        a = run_dir(root, "a", [10, 20, 30], [100, 400, 900])  # own median ratio 400 / 20 = 20x
        b = run_dir(root, "b", [40, 50], [1000, 3000])         # own median ratio 2000 / 45
        r = pool(a, b)
        assert r.returncode == 0, r.stderr
        # Pooled: BookSim2 10, 20, 30, 40, 50 -> median 30, best 50; nwnsim
        # 100 ... 3000 -> median 900, best 3000: 30.0x, best to best 60.0x.
        assert "BookSim2 30.0 (50.0), 5 rounds" in r.stdout, r.stdout
        assert "nwnsim-1t: 900.0 (3,000.0): 30.0x [20.0x, 44.4x] (60.0x best to best); slowest round 100.0" in r.stdout, r.stdout
        c = run_dir(root, "c", [10], [100], commit="other")
        r = pool(a, c)
        assert r.returncode == 2 and "differ in nwnsim_commit" in r.stderr, (r.returncode, r.stderr)
        r = pool(os.path.join(root, "missing"))
        assert r.returncode == 2 and "speed.json" in r.stderr, r.stderr
    print("speed-booksim-pool: 3 checks passed")


if __name__ == "__main__":
    main()
