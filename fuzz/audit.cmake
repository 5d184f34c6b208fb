# libFuzzer targets for the audit-log parsers and verifier, the MCP JSON-RPC layer and its two
# transports, the model
# file parser, the policy file parser, the feature extractor and the process-owner reader
# (fuzz/fuzz_*.c), built
# like fuzz_trace: each compiles the library sources with the fuzzer and the
# sanitizers.  Seed corpora: fuzz/corpus_audit_<name>/ (audit), fuzz/corpus_<name>/.
foreach(name entry note proof verify mcp model policy features procinfo report logopen)
  add_executable(fuzz_${name} fuzz/fuzz_${name}.c ${WT_LIB_SOURCES})
  target_include_directories(fuzz_${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_compile_options(fuzz_${name} PRIVATE -fsanitize=fuzzer,address,undefined ${WT_WARN})
  target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_${name} PRIVATE PkgConfig::JANSSON PkgConfig::SODIUM PkgConfig::MHD Threads::Threads m
                        ${CMAKE_DL_LIBS})
endforeach()
# the MCP transports: each target includes its transport's C file (to put
# fuzz/mcp_fast.h's stand-ins for the slow tools under it), so that file is
# left out of the library sources it is linked with
foreach(name http stdio)
  set(srcs ${WT_LIB_SOURCES})
  list(REMOVE_ITEM srcs src/mcp/${name}.c)
  add_executable(fuzz_mcp_${name} fuzz/fuzz_mcp_${name}.c ${srcs})
  target_include_directories(fuzz_mcp_${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_compile_options(fuzz_mcp_${name} PRIVATE -fsanitize=fuzzer,address,undefined ${WT_WARN})
  target_link_options(fuzz_mcp_${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_mcp_${name} PRIVATE PkgConfig::JANSSON PkgConfig::SODIUM PkgConfig::MHD
                        Threads::Threads m ${CMAKE_DL_LIBS})
endforeach()
# the command-line option parser (src/cli/opts.c is not in the library)
add_executable(fuzz_opts fuzz/fuzz_opts.c src/cli/opts.c ${WT_LIB_SOURCES})
target_include_directories(fuzz_opts PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_compile_options(fuzz_opts PRIVATE -fsanitize=fuzzer,address,undefined ${WT_WARN})
target_link_options(fuzz_opts PRIVATE -fsanitize=fuzzer,address,undefined)
target_link_libraries(fuzz_opts PRIVATE PkgConfig::JANSSON PkgConfig::SODIUM PkgConfig::MHD
                      Threads::Threads m ${CMAKE_DL_LIBS})
