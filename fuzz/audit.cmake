# libFuzzer targets for the audit-log parsers and verifier, the MCP JSON-RPC layer, the model
# file parser, the policy file parser, the feature extractor and the process-owner reader
# (fuzz/fuzz_*.c), built
# like fuzz_trace: each compiles the library sources with the fuzzer and the
# sanitizers.  Seed corpora: fuzz/corpus_audit_<name>/ (audit), fuzz/corpus_<name>/.
foreach(name entry note proof verify mcp model policy features procinfo)
  add_executable(fuzz_${name} fuzz/fuzz_${name}.c ${WT_LIB_SOURCES})
  target_include_directories(fuzz_${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_compile_options(fuzz_${name} PRIVATE -fsanitize=fuzzer,address,undefined ${WT_WARN})
  target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_${name} PRIVATE PkgConfig::JANSSON PkgConfig::SODIUM PkgConfig::MHD Threads::Threads m
                        ${CMAKE_DL_LIBS})
endforeach()
