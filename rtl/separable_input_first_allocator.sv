// Separable input-first allocator, cycle- and bit-exact with the C++
// SeparableInputFirstAllocator ("input_first", models/separable_allocator.cpp).
//
// Each input picks one of its requested outputs with its round-robin arbiter;
// each output then grants one of the inputs that picked it. Both arbiters
// move (to one past the partner) only for final grants, so an input whose
// pick lost keeps its priority at both stages.
//
// Interface as islip_allocator: req_i and gnt_o are row-major (bit in*M+out);
// gnt_o has at most one bit per row and per column; grants are combinational
// and the pointers move on the rising clock edge.
module separable_input_first_allocator #(
  /// Number of inputs (requesters), at least 1.
  parameter int unsigned N = 4,
  /// Number of outputs (resources), at least 1.
  parameter int unsigned M = 4
) (
  /// Clock; the pointers move on its rising edge.
  input  logic           clk_i,
  /// Asynchronous active-low reset: all pointers to 0.
  input  logic           rst_ni,
  /// Request matrix, bit in*M + out: input `in` requests output `out`.
  input  logic [N*M-1:0] req_i,
  /// Grant matrix, same layout: at most one bit per row and per column.
  output logic [N*M-1:0] gnt_o
);
  logic [N*M-1:0] pick;     // bit in*M + out: input in picked out
  logic [M*N-1:0] pickers;  // bit out*N + in: the same, transposed
  logic [M*N-1:0] win;      // bit out*N + in: output out granted in

  // The transposes are procedural loops (one block per vector), not
  // generate loops of bit assigns: see islip_allocator.sv.
  always_comb begin
    for (int o = 0; o < M; o++)
      for (int i = 0; i < N; i++)
        pickers[o*N + i] = pick[i*M + o];
  end
  always_comb begin
    for (int o = 0; o < M; o++)
      for (int i = 0; i < N; i++)
        gnt_o[i*M + o] = win[o*N + i];
  end

  // The priority masks are for multi-pass allocators (iSLIP); one pass needs
  // only the grants.
  /* verilator lint_off PINCONNECTEMPTY */
  for (genvar i = 0; i < N; i++) begin : g_input_arb
    rr_arbiter #(.N(M)) u_arb (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .req_i    (req_i[i*M +: M]),
      .advance_i(|gnt_o[i*M +: M]),  // this input's pick won
      .gnt_o    (pick[i*M +: M]),
      .prio_o   ()
    );
  end

  for (genvar o = 0; o < M; o++) begin : g_output_arb
    rr_arbiter #(.N(N)) u_arb (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .req_i    (pickers[o*N +: N]),
      .advance_i(|pickers[o*N +: N]),  // any picker means a final grant
      .gnt_o    (win[o*N +: N]),
      .prio_o   ()
    );
  end
  /* verilator lint_on PINCONNECTEMPTY */

`ifdef NWNSIM_ASSERT
  // A matching of requests. Rows are one-hot because each input picks one
  // output; columns because each output arbiter grants one input.
  // (No labels inside generate loops: Yosys 0.23 would not scope them.)
  for (genvar i = 0; i < N; i++) begin : g_assert_in
    always_comb assert ($onehot0(gnt_o[i*M +: M]));
  end
  for (genvar o = 0; o < M; o++) begin : g_assert_out
    always_comb assert ($onehot0(win[o*N +: N]));
  end
  always_comb a_requested: assert ((gnt_o & ~req_i) == '0);
`endif
endmodule
