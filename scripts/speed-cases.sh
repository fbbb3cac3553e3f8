# The speed cases of issue 23 as nwnsim settings, for scripts/speed-ab,
# scripts/callgrind-per-cycle and the scripts of scripts/experiments/
# (sourced, not run), and perf_speeds (below): the same work as
# scripts/speed-booksim's cases (single, fattree-link1, fattree-link10).
#
#   speed_case_args ROOT CASE [BINARY...]
#
# Sets the array speed_args to the arguments of `nwnsim run` after `run`
# for CASE, without the warm-up and window (each script sets its own):
# single (one 64x64 router, uniform 0.5), fat1 (the 4,096-node fat tree,
# 1-cycle links, uniform 0.3) or fat10 (the same with 10-cycle links); and
# not for scripts/speed-booksim (BookSim2 has no such case), hyperx10 (the case
# hyperx4096-cn128-ur-0.3 of `nwnsim bench --huge cn`, the 4,096-node HyperX
# of radix-128 cn routers, its links the default 10 cycles, one colour) or
# hyperx1 (the same with 1-cycle links: blocks of one cycle). The HyperX
# settings are bench's own (`bench --print-args`, the only list of them),
# from the first BINARY that has that flag. Says what is wrong and returns
# 1 for another CASE or when no BINARY prints them.
speed_case_args() {
  local root=$1 case=$2
  shift 2
  local fat=(--set network.topology=fclos --set router.radix=32 --set network.fclos_levels=3
             --set network.routing=random --set traffic.load=0.3)
  speed_args=("$root/configs/booksim-compat.toml" --quiet --set router.vcs=4 --set traffic.pattern=uniform
              --set sim.seed=1)
  case $case in
    single) speed_args+=(--set traffic.load=0.5) ;;
    fat1) speed_args+=("${fat[@]}" --set network.link_latency_cycles=1) ;;
    fat10) speed_args+=("${fat[@]}" --set network.link_latency_cycles=10) ;;
    hyperx10|hyperx1)
      local bin line=
      for bin in "$@"; do
        line=$("$bin" bench --huge cn --only hyperx4096-cn128-ur-0.3 --print-args 2>/dev/null) && break
        line=
      done
      if [ -z "$line" ]; then
        echo "speed_case_args: none of the binaries ($*) has \`nwnsim bench --print-args\`" >&2
        return 1
      fi
      read -ra speed_args <<< "${line#*$'\t'}"
      speed_args=(--quiet "${speed_args[@]}")
      if [ "$case" = hyperx1 ]; then speed_args+=(--set network.link_latency_cycles=1); fi ;;
    *) echo "speed_case_args: CASE '$case' is not one of single, fat1, fat10, hyperx10, hyperx1" >&2; return 1 ;;
  esac
}

# The window of scripts/experiments/'s runs: 500 + 500 cycles, no drain.
speed_window=(--set sim.warmup_cycles=500 --set sim.measure_cycles=500 --set sim.drain_cap_cycles=0)

# One run of scripts/experiments/: LAUNCH (the binary, or `env VAR=VALUE ...
# BINARY`) on speed_args (speed_case_args) with sim.threads THREADS and
# speed_window, its speed (perf_speeds) printed and appended to FILE as
# `CASE LABEL CYCLES/S CYCLES/CPU-S`, the line scripts/speed-ab prints and
# scripts/speed-ab-summary pairs. The perf JSON is FILE.json.
#
#   speed_window_run FILE CASE LABEL THREADS LAUNCH...
speed_window_run() {
  local file=$1 case=$2 label=$3 threads=$4 speeds
  shift 4
  "$@" run "${speed_args[@]}" --set "sim.threads=$threads" "${speed_window[@]}" --perf-json "$file.json" >/dev/null
  speeds=$(perf_speeds "$file.json")
  printf '%s %s %s\n' "$case" "$label" "$speeds" | tee -a "$file"
}

# Prints a run's speed from its --perf-json file: cycles per second, then the
# same per CPU second of the simulation (less moved by other work on the
# machine), as scripts/speed-ab-summary reads them.
perf_speeds() {
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); c = d["cycles_per_second"]
print("%.1f %.1f" % (c, c * d["wall_seconds"] / d["cpu_seconds"]))' "$1"
}
