// Round-robin pick, thermometer (mask) style: the combinational half of
// rr_arbiter, split out so that iSLIP's later iterations can arbitrate with
// the same pointer as the first. Matches nwn::RoundRobinArbiter::arbitrate
// (models/arbiter.hpp): the winner is the first requester at or after the
// pointer, wrapping around.
//
// The pointer is held as a priority mask, prio_i[i] = (i >= pointer). If any
// requester lies inside the mask the lowest of those wins, otherwise the lowest
// requester overall. A mask of all zeros behaves like pointer 0, which is why
// "one past the last requester" needs no wrap logic.
//
// The prefix OR below is a linear chain (N-1 OR gates); a log-depth prefix
// network (Sklansky, Kogge-Stone) is a drop-in replacement if timing needs it.
module rr_pick #(
  /// Number of requesters (at least 1).
  parameter int unsigned N = 4
) (
  /// Requests: bit i set when requester i wants the resource.
  input  logic [N-1:0] req_i,
  /// Priority mask: bit i set when requester i is at or after the pointer.
  input  logic [N-1:0] prio_i,
  /// Grant: one-hot, or all zeros when nothing is requested.
  output logic [N-1:0] gnt_o,
  /// Bits strictly above the winner: the priority mask that moves the
  /// pointer to one past the winner (all zeros when there is no winner).
  output logic [N-1:0] above_o
);
  logic [N-1:0] masked;  // requests at or after the pointer
  logic [N-1:0] sel;     // the set the winner is the lowest bit of
  logic [N-1:0] below;   // below[i]: some bit of sel lies under i

  assign masked = req_i & prio_i;
  assign sel    = (|masked) ? masked : req_i;

  // Prefix OR, written procedurally: as continuous assigns the chain through
  // one vector reads as a combinational loop to Verilator (UNOPTFLAT).
  always_comb begin
    logic seen;
    seen = 1'b0;
    for (int i = 0; i < N; i++) begin
      below[i] = seen;
      seen     = seen | sel[i];
    end
  end

  assign gnt_o = sel & ~below;
  // The winner is the lowest bit of sel, so "a bit of sel under i" is
  // exactly "the winner is under i": below is the next mask.
  assign above_o = below;

`ifdef NWNSIM_ASSERT
  always_comb begin
    a_one_hot:      assert ($onehot0(gnt_o));
    a_requested:    assert ((gnt_o & ~req_i) == '0);
    a_work_conserv: assert ((|gnt_o) == (|req_i));
    // Round robin: a requester at or after the pointer beats any before it.
    a_round_robin:  assert (!(|masked) || (|(gnt_o & prio_i)));
  end
`endif
endmodule
