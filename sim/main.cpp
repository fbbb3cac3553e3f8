#include <cstdlib>

#include <systemc>

#include "cli.hpp"
#include "process.hpp"
#ifdef NWNSIM_MPI
#include "ranks_mpi.hpp"
#endif

// SystemC prints its banner before sc_main runs; silence it from a static
// initializer, which runs before libsystemc's main().
static const bool banner_silenced = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

int sc_main(int argc, char** argv) {
  (void)banner_silenced;
  nwn::restart_with_huge_pages(argv);  // sim/process.hpp
#ifdef NWNSIM_MPI
  // Under mpirun or srun, `run` spreads over the ranks (sim/ranks.hpp).
  nwn::MpiSession mpi(argc, argv);
  if (mpi.code() != 0) return mpi.code();
  const int code = nwn::nwnsim_main(argc, argv);
  mpi.finish(code);
  return code;
#else
  return nwn::nwnsim_main(argc, argv);
#endif
}
