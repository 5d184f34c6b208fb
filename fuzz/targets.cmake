# libFuzzer targets (fuzz/fuzz_*.c): the trace reader, the audit-log parsers,
# verifier, open/repair and witness, the MCP JSON-RPC layer and its two
# transports, the option parser, the model and policy files, the feature extractor, the
# process-owner reader, the HTML report, the Prometheus exporter (its HTTP
# server and the exposition's labels), the MCP bearer token file, the
# simulator windows' cache entries and the Slurm plugin's parsers.  Seed
# corpora: fuzz/corpus/ (trace), fuzz/corpus_audit_<name>/ (audit),
# fuzz/corpus_<name>/.
#
# The library sources are compiled once with the coverage instrumentation and
# the sanitizers (object libraries), and every target links them (compiled
# into each target, as before 2026-12-02, they made the fuzz build take 2 min
# 30 s on a 2-core machine; now 29 s).  The two MCP transport targets include
# their transport's C file (to put fuzz/mcp_fast.h's stand-ins for the slow
# tools under it), so the transports are object libraries of their own.
#
# Undefined behaviour stops the run like a crash (recoverable, it was only
# written to the target's log, and the build passed).
set(WT_FUZZ_CFLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all)
set(WT_FUZZ_LFLAGS -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
set(wt_fuzz_core ${WT_LIB_SOURCES})
list(REMOVE_ITEM wt_fuzz_core src/mcp/http.c src/mcp/stdio.c)
add_library(wt_fuzz_core OBJECT ${wt_fuzz_core})
add_library(wt_fuzz_http OBJECT src/mcp/http.c)
add_library(wt_fuzz_stdio OBJECT src/mcp/stdio.c)
foreach(lib wt_fuzz_core wt_fuzz_http wt_fuzz_stdio)
  target_include_directories(${lib} PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_compile_options(${lib} PRIVATE ${WT_FUZZ_CFLAGS} ${WT_WARN})
  # the packages' include paths and flags (headers outside /usr/include)
  target_link_libraries(${lib} PRIVATE PkgConfig::JANSSON PkgConfig::SODIUM PkgConfig::MHD
                        Threads::Threads)
endforeach()

# wt_fuzz_target(NAME SOURCES...): fuzz_NAME from fuzz/fuzz_NAME.c, SOURCES
# and the instrumented library
function(wt_fuzz_target name)
  add_executable(fuzz_${name} fuzz/fuzz_${name}.c ${ARGN} $<TARGET_OBJECTS:wt_fuzz_core>)
  target_include_directories(fuzz_${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_compile_options(fuzz_${name} PRIVATE ${WT_FUZZ_CFLAGS} ${WT_WARN})
  target_link_options(fuzz_${name} PRIVATE ${WT_FUZZ_LFLAGS})
  target_link_libraries(fuzz_${name} PRIVATE PkgConfig::JANSSON PkgConfig::SODIUM PkgConfig::MHD
                        Threads::Threads m ${CMAKE_DL_LIBS})
endfunction()

foreach(name trace entry note proof verify witness mcp model policy features procinfo report logopen
             exporter simcache)
  wt_fuzz_target(${name} $<TARGET_OBJECTS:wt_fuzz_http> $<TARGET_OBJECTS:wt_fuzz_stdio>)
endforeach()
# the command-line option parser (src/cli/opts.c is not in the library)
wt_fuzz_target(opts src/cli/opts.c $<TARGET_OBJECTS:wt_fuzz_http> $<TARGET_OBJECTS:wt_fuzz_stdio>)
# the MCP server's bearer token reader (src/cli/cmd_mcp.c, included: static)
wt_fuzz_target(token src/cli/opts.c $<TARGET_OBJECTS:wt_fuzz_http> $<TARGET_OBJECTS:wt_fuzz_stdio>)
wt_fuzz_target(mcp_http $<TARGET_OBJECTS:wt_fuzz_stdio>)
wt_fuzz_target(mcp_stdio $<TARGET_OBJECTS:wt_fuzz_http>)
# the Slurm plugin's parsers (its C file is included, with stand-ins for the
# Slurm calls), where <slurm/spank.h> is installed, as for the plugin
if(SLURM_SPANK_INCLUDE_DIR)
  wt_fuzz_target(spank $<TARGET_OBJECTS:wt_fuzz_http> $<TARGET_OBJECTS:wt_fuzz_stdio>)
  target_include_directories(fuzz_spank PRIVATE ${SLURM_SPANK_INCLUDE_DIR})
endif()
