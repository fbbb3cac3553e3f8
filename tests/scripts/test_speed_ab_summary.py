"""scripts/speed-ab-summary: the pairing of alternating rounds, for both
input forms, and its refusal of input without rounds (run by ctest:
speed_ab_summary)."""
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      "scripts", "speed-ab-summary")


def summarize(text):
    return subprocess.run([sys.executable, SCRIPT], input=text, capture_output=True, text=True)


def main():
    # speed-ab: A 100, 200, 400; B 110, 180, 480 (cycles/s, higher is
    # faster). Pair ratios 1.1, 0.9, 1.2 -> median 1.1, B won 2 of 3;
    # against the neighbouring A rounds: 110 / 150, 180 / 300 -> median
    # (0.733 + 0.6) / 2 = 0.667.
    rounds = "".join("fat10 %s %.1f %.1f\n" % (b, v, v) for a, bv in [(100, 110), (200, 180), (400, 480)]
                     for b, v in (("A", a), ("B", bv)))
    r = summarize(rounds + "load: 1.00 1.00 1.00\n")
    assert r.returncode == 0, r.stderr
    assert "fat10: medians (cycles/s) A 200.0, B 180.0" in r.stdout, r.stdout
    assert "fat10: B against A: median pair ratio 1.100x, 2 of 3 rounds faster, " \
           "median against the neighbouring rounds 0.667x" in r.stdout, r.stdout
    # speed-ab-huge: nanoseconds a flit-hop, lower is faster. A 500, 400;
    # B 250, 500 -> speedups 2.0 and 0.8, median 1.4, B won 1 of 2.
    huge = "".join("%s hx-131072 %.1f ns-cpu/flit-hop 19.0 cycles/s 2639 MB\n" % (b, v)
                   for a, bv in [(500, 250), (400, 500)] for b, v in (("A", a), ("B", bv)))
    r = summarize(huge)
    assert r.returncode == 0, r.stderr
    assert "hx-131072: medians (ns-cpu/flit-hop) A 450.0, B 375.0" in r.stdout, r.stdout
    assert "hx-131072: B against A: median pair ratio 1.400x, 1 of 2 rounds faster" in r.stdout, r.stdout
    r = summarize("load: 1.00 1.00 1.00\n")
    assert r.returncode == 2 and "no rounds" in r.stderr, (r.returncode, r.stderr)
    print("speed-ab-summary: ok")


if __name__ == "__main__":
    main()
