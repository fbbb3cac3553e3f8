// MPI for nwnsim's ranks (sim/ranks.hpp): linked into the nwnsim program
// when built with NWNSIM_MPI, never into the library an embedding links.
#pragma once

namespace nwn {

// Lives for sc_main. When an MPI launcher (mpirun, srun) started this
// process to `run`, starts MPI (one thread calls it: the SystemC thread)
// and makes MPI's world the process's ranks; MPI ends with the session.
// Without a launcher it does nothing: nwnsim runs as one process, as it
// always did. Under a launcher with more than one rank, a command other
// than run is an error (`code()` is then 2, after a message on stderr).
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int code() const { return code_; }
  // The command ended with `code`: a failure the other ranks may not know
  // of (one not agreed, Ranks::failure_agreed) ends them all.
  void finish(int code);

 private:
  bool started_ = false;
  int code_ = 0;
};

}  // namespace nwn
