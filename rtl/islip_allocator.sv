// iSLIP allocator (McKeown 1999), cycle- and bit-exact with the C++
// IslipAllocator (models/islip_allocator.cpp) built with the same N, M and
// iterations.
//
// Each iteration: every unmatched output grants the unmatched requesting
// input first at or after its grant pointer; every unmatched input accepts
// the granting output first at or after its accept pointer. Pointers move
// (to one past the partner) only for grants accepted in the first
// iteration; later iterations pick with the same, unmoved pointers.
//
// Interface (shared by every allocator in rtl/): the request matrix and the
// grant matrix are both row-major, bit in*M + out. Each row and each column
// of gnt_o has at most one bit set; a row's bit is the output granted to that
// input (nwn::Allocator::grant_of_input). Grants are combinational from req_i
// and the pointers; the pointers move on the rising clock edge.
//
// Vectors are flat (one packed dimension) so that Yosys 0.23 reads the file.
module islip_allocator #(
  /// Number of inputs (requesters), at least 1.
  parameter int unsigned N = 4,
  /// Number of outputs (resources), at least 1.
  parameter int unsigned M = 4,
  /// iSLIP iterations per allocation, at least 1.
  parameter int unsigned ITERATIONS = 1
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
  // Each iteration is its own generate block with its own signals; a later
  // iteration reads the previous one's results as g_iter[k-1].<name>. (One
  // vector indexed by iteration would look like a combinational loop to the
  // linter: UNOPTFLAT.) The first iteration holds the stored arbiters; later
  // ones use rr_pick with the first iteration's pointers.
  for (genvar k = 0; k < ITERATIONS; k++) begin : g_iter
    logic [N-1:0]   in_free;   // unmatched before this iteration
    logic [M-1:0]   out_free;
    logic [M*N-1:0] col_req;   // bit out*N + in: request from an unmatched input
    logic [M*N-1:0] offer;     // bit out*N + in: output out offers itself to in
    logic [N*M-1:0] offers;    // bit in*M + out: the same, transposed
    logic [N*M-1:0] accept;    // bit in*M + out: input in accepts out
    logic [M*N-1:0] taken_by;  // bit out*N + in: accept, transposed
    logic [N*M-1:0] gnt;       // the matching after this iteration
    // What this iteration matched (the last iteration's go unused when
    // ITERATIONS > 1: nothing comes after it).
    /* verilator lint_off UNUSEDSIGNAL */
    logic [N-1:0]   accepted;  // input accepted in this iteration
    logic [M-1:0]   taken;     // output accepted in this iteration
    /* verilator lint_on UNUSEDSIGNAL */

    if (k == 0) begin : g_free
      assign in_free  = '1;
      assign out_free = '1;
    end else begin : g_free
      assign in_free  = g_iter[k-1].in_free & ~g_iter[k-1].accepted;
      assign out_free = g_iter[k-1].out_free & ~g_iter[k-1].taken;
    end

    // The transposes are procedural loops, not generate loops of bit
    // assigns: Verilator writes a generate loop out as N x M statements (155
    // MB of C++ for a 256x256 allocator) but keeps a long procedural loop a
    // loop. One block per vector: a block that wrote col_req and read offer
    // would look like a combinational loop (UNOPTFLAT).
    always_comb begin
      for (int o = 0; o < M; o++)
        for (int i = 0; i < N; i++)
          col_req[o*N + i] = req_i[i*M + o] & in_free[i] & out_free[o];
    end
    always_comb begin
      for (int o = 0; o < M; o++)
        for (int i = 0; i < N; i++)
          offers[i*M + o] = offer[o*N + i];
    end
    always_comb begin
      for (int o = 0; o < M; o++)
        for (int i = 0; i < N; i++)
          taken_by[o*N + i] = accept[i*M + o];
    end

    // Grant phase: each unmatched output offers itself to one input.
    for (genvar o = 0; o < M; o++) begin : g_grant
      assign taken[o] = |taken_by[o*N +: N];
      if (k == 0) begin : g_arb
        // Also the pointer for later iterations (unused when ITERATIONS == 1).
        /* verilator lint_off UNUSEDSIGNAL */
        logic [N-1:0] prio;
        /* verilator lint_on UNUSEDSIGNAL */
        rr_arbiter #(.N(N)) u_grant (
          .clk_i    (clk_i),
          .rst_ni   (rst_ni),
          .req_i    (col_req[o*N +: N]),
          .advance_i(taken[o]),  // accepted in the first iteration
          .gnt_o    (offer[o*N +: N]),
          .prio_o   (prio)
        );
      end else begin : g_pick
        logic [N-1:0] unused_above;  // later iterations never move pointers
        rr_pick #(.N(N)) u_grant (
          .req_i  (col_req[o*N +: N]),
          .prio_i (g_iter[0].g_grant[o].g_arb.prio),
          .gnt_o  (offer[o*N +: N]),
          .above_o(unused_above)
        );
      end
    end

    // Accept phase: only unmatched inputs receive offers, and each accepts one.
    for (genvar i = 0; i < N; i++) begin : g_accept
      assign accepted[i] = |accept[i*M +: M];
      if (k == 0) begin : g_arb
        /* verilator lint_off UNUSEDSIGNAL */
        logic [M-1:0] prio;
        /* verilator lint_on UNUSEDSIGNAL */
        rr_arbiter #(.N(M)) u_accept (
          .clk_i    (clk_i),
          .rst_ni   (rst_ni),
          .req_i    (offers[i*M +: M]),
          .advance_i(accepted[i]),
          .gnt_o    (accept[i*M +: M]),
          .prio_o   (prio)
        );
      end else begin : g_pick
        logic [M-1:0] unused_above;
        rr_pick #(.N(M)) u_accept (
          .req_i  (offers[i*M +: M]),
          .prio_i (g_iter[0].g_accept[i].g_arb.prio),
          .gnt_o  (accept[i*M +: M]),
          .above_o(unused_above)
        );
      end
    end

    // Each input accepts in at most one iteration, so the union is the matching.
    if (k == 0) begin : g_gnt
      assign gnt = accept;
    end else begin : g_gnt
      assign gnt = g_iter[k-1].gnt | accept;
    end
  end

  assign gnt_o = g_iter[ITERATIONS-1].gnt;

`ifdef NWNSIM_ASSERT
  // A matching of requests: one output per input, one input per output.
  // (No labels inside generate loops: Yosys 0.23 would not scope them.)
  logic [M*N-1:0] gnt_t;  // bit out*N + in
  always_comb begin
    for (int o = 0; o < M; o++)
      for (int i = 0; i < N; i++)
        gnt_t[o*N + i] = gnt_o[i*M + o];
  end
  for (genvar o = 0; o < M; o++) begin : g_assert_out
    always_comb assert ($onehot0(gnt_t[o*N +: N]));
  end
  for (genvar i = 0; i < N; i++) begin : g_assert_in
    always_comb assert ($onehot0(gnt_o[i*M +: M]));
  end
  always_comb a_requested: assert ((gnt_o & ~req_i) == '0);
`endif
endmodule
