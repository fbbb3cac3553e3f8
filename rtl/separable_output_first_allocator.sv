// Separable output-first allocator, cycle- and bit-exact with the C++
// SeparableOutputFirstAllocator ("output_first", models/separable_allocator.cpp).
//
// Each output picks one of its requesting inputs with its round-robin
// arbiter; each input then accepts one of the outputs that picked it. Both
// arbiters move (to one past the partner) only for final grants.
//
// Interface as islip_allocator: req_i and gnt_o are row-major (bit in*M+out);
// gnt_o has at most one bit per row and per column; grants are combinational
// and the pointers move on the rising clock edge.
module separable_output_first_allocator #(
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
  logic [M*N-1:0] col_req;  // bit out*N + in: req_i transposed
  logic [M*N-1:0] pick;     // bit out*N + in: output out picked in
  logic [N*M-1:0] offers;   // bit in*M + out: the same, transposed
  logic [M*N-1:0] won;      // bit out*N + in: gnt_o transposed

  // The transposes are procedural loops (one block per vector), not
  // generate loops of bit assigns: see islip_allocator.sv.
  always_comb begin
    for (int o = 0; o < M; o++)
      for (int i = 0; i < N; i++)
        col_req[o*N + i] = req_i[i*M + o];
  end
  always_comb begin
    for (int o = 0; o < M; o++)
      for (int i = 0; i < N; i++)
        offers[i*M + o] = pick[o*N + i];
  end
  always_comb begin
    for (int o = 0; o < M; o++)
      for (int i = 0; i < N; i++)
        won[o*N + i] = gnt_o[i*M + o];
  end

  // The priority masks are for multi-pass allocators (iSLIP); one pass needs
  // only the grants.
  /* verilator lint_off PINCONNECTEMPTY */
  for (genvar o = 0; o < M; o++) begin : g_output_arb
    rr_arbiter #(.N(N)) u_arb (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .req_i    (col_req[o*N +: N]),
      .advance_i(|won[o*N +: N]),  // this output's pick was accepted
      .gnt_o    (pick[o*N +: N]),
      .prio_o   ()
    );
  end

  for (genvar i = 0; i < N; i++) begin : g_input_arb
    rr_arbiter #(.N(M)) u_arb (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .req_i    (offers[i*M +: M]),
      .advance_i(|offers[i*M +: M]),  // any offer means a final grant
      .gnt_o    (gnt_o[i*M +: M]),
      .prio_o   ()
    );
  end
  /* verilator lint_on PINCONNECTEMPTY */

`ifdef NWNSIM_ASSERT
  // A matching of requests. Columns are one-hot because each output picks one
  // input; rows because each input arbiter accepts one output.
  // (No labels inside generate loops: Yosys 0.23 would not scope them.)
  for (genvar o = 0; o < M; o++) begin : g_assert_out
    always_comb assert ($onehot0(won[o*N +: N]));
  end
  for (genvar i = 0; i < N; i++) begin : g_assert_in
    always_comb assert ($onehot0(gnt_o[i*M +: M]));
  end
  always_comb a_requested: assert ((gnt_o & ~req_i) == '0);
`endif
endmodule
