# Unity builds (CMake's UNITY_BUILD, GROUP mode): a target's sources are
# compiled a few at a time, one directory's files to a group. A cold build
# spends most of its time generating code for the same inline functions and
# templates in every file (CLI11's validators, nlohmann/json, fmt,
# GoogleTest): once per group instead of once per file.
#
# On by default when no compiler launcher is set (a cold build, as CI's
# .ci/run makes); off with a launcher such as ccache (source /work/devenv.sh),
# where one object per file rebuilds less after an edit and is shared with
# other checkouts (a unity file names its sources by absolute path). Either
# way -DNWNSIM_UNITY=ON|OFF decides.
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(nwnsim_unity_default OFF)
else()
  set(nwnsim_unity_default ON)
endif()
option(NWNSIM_UNITY "Compile each target's sources in groups (unity build)" ${nwnsim_unity_default})
set(NWNSIM_UNITY_GROUP_SIZE 8 CACHE STRING "Sources per unity group")

# nwnsim_unity(<target>): groups the target's .cpp sources by directory, at
# most NWNSIM_UNITY_GROUP_SIZE to a group, in name order. A source with the
# SKIP_UNITY_BUILD_INCLUSION property (a file whose file-local names clash
# with another's in its directory) or with its own compile definitions is
# compiled alone.
function(nwnsim_unity target)
  if(NOT NWNSIM_UNITY)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  get_target_property(sources ${target} SOURCES)
  list(FILTER sources INCLUDE REGEX "\\.cpp$")
  list(SORT sources)
  foreach(source ${sources})
    get_source_file_property(skip ${source} SKIP_UNITY_BUILD_INCLUSION)
    get_source_file_property(defs ${source} COMPILE_DEFINITIONS)
    if(skip OR defs)
      continue()
    endif()
    get_filename_component(dir ${source} ABSOLUTE)
    get_filename_component(dir ${dir} DIRECTORY)
    file(RELATIVE_PATH dir ${PROJECT_SOURCE_DIR} ${dir})
    string(MAKE_C_IDENTIFIER "${dir}" key)
    if(NOT DEFINED count_${key} OR count_${key} EQUAL NWNSIM_UNITY_GROUP_SIZE)
      if(DEFINED index_${key})
        math(EXPR index_${key} "${index_${key}} + 1")
      else()
        set(index_${key} 1)
      endif()
      set(count_${key} 0)
    endif()
    set_property(SOURCE ${source} PROPERTY UNITY_GROUP "${key}_${index_${key}}")
    math(EXPR count_${key} "${count_${key}} + 1")
  endforeach()
endfunction()
