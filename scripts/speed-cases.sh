# The speed cases of issue 23 as nwnsim settings, for scripts/speed-ab and
# scripts/callgrind-per-cycle (sourced, not run): the same work as
# scripts/speed-booksim's cases (single, fattree-link1, fattree-link10).
#
#   speed_case_args ROOT CASE
#
# Sets the array speed_args to the arguments of `nwnsim run` after `run`
# for CASE, without the warm-up and window (each script sets its own):
# single (one 64x64 router, uniform 0.5), fat1 (the 4,096-node fat tree,
# 1-cycle links, uniform 0.3) or fat10 (the same with 10-cycle links); and
# for scripts/speed-ab only (BookSim2 has no such case), hyperx10 (the
# 4,096-node HyperX of cn routers of `nwnsim bench --huge cn`: S = 8,16,
# K = 2, T = 32, radix 128, uniform 0.3 with bench's flit, VC and
# allocator settings; its links the default 10 cycles, one colour) or
# hyperx1 (the same with 1-cycle links: blocks of one cycle). Returns 1
# for another CASE.
speed_case_args() {
  local root=$1
  local fat=(--set network.topology=fclos --set router.radix=32 --set network.fclos_levels=3
             --set network.routing=random --set traffic.load=0.3)
  speed_args=("$root/configs/booksim-compat.toml" --quiet --set router.vcs=4 --set traffic.pattern=uniform
              --set sim.seed=1)
  case $2 in
    single) speed_args+=(--set traffic.load=0.5) ;;
    fat1) speed_args+=("${fat[@]}" --set network.link_latency_cycles=1) ;;
    fat10) speed_args+=("${fat[@]}" --set network.link_latency_cycles=10) ;;
    hyperx10|hyperx1)
      speed_args=(--quiet --set flit.bits=64 --set channel.width_bits=64 --set router.vcs=4
                  --set router.vc_depth_flits=16 --set traffic.packet_flits=1 --set router.allocator_iterations=1
                  --set router.org=cn --set network.topology=hyperx --set network.hyperx_s=8,16
                  --set network.hyperx_k=2 --set network.hyperx_t=32 --set router.radix=128
                  --set traffic.pattern=uniform --set traffic.load=0.3 --set sim.seed=1)
      if [ "$2" = hyperx1 ]; then speed_args+=(--set network.link_latency_cycles=1); fi ;;
    *) return 1 ;;
  esac
}
