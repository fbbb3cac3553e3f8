// Round-robin arbiter with a stored pointer: nwn::RoundRobinArbiter
// (models/arbiter.hpp) in hardware. The grant is combinational from req_i and
// the pointer; the pointer moves to one past the current winner on the clock
// edge only when advance_i is set, which is what iSLIP and the separable
// allocators need (a losing or unaccepted requester keeps its priority).
module rr_arbiter #(
  /// Number of requesters (at least 1).
  parameter int unsigned N = 4
) (
  /// Clock; the pointer moves on its rising edge.
  input  logic         clk_i,
  /// Asynchronous active-low reset: pointer to 0, as a new C++ arbiter.
  input  logic         rst_ni,
  /// Requests: bit i set when requester i wants the resource.
  input  logic [N-1:0] req_i,
  /// Move the pointer to one past this cycle's winner. Only meaningful with
  /// a grant; the C++ calls update() only for winners.
  input  logic         advance_i,
  /// Grant: one-hot, or all zeros when nothing is requested.
  output logic [N-1:0] gnt_o,
  /// Current priority mask (bit i = requester i at or after the pointer), so
  /// that other picks in the same cycle can use the same pointer (rr_pick).
  output logic [N-1:0] prio_o
);
  logic [N-1:0] prio_q;  // the pointer, as a thermometer mask
  logic [N-1:0] above;   // the mask one past this cycle's winner

  rr_pick #(.N(N)) u_pick (
    .req_i  (req_i),
    .prio_i (prio_q),
    .gnt_o  (gnt_o),
    .above_o(above)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) prio_q <= '1;
    else if (advance_i) prio_q <= above;
  end

  assign prio_o = prio_q;

`ifdef NWNSIM_ASSERT
  // Advancing with no winner would move the pointer to 0, which the C++
  // arbiter never does.
  always_comb a_advance_has_winner: assert (!advance_i || (|gnt_o));
`endif
endmodule
