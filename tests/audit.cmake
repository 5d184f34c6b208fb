# audit-log tests (see tests/test_audit_attack.c, tests/audit_*.{c,sh})
#
# test_audit_attack: mutation, rewrite, witness, power-loss, full-disk and lock
# tests of the audit log (cmocka).  Its every-offset loops (a bit flipped and
# the log cut at each byte offset, each then verified) took 398.63 s in the
# normal build (clean-clone CI at 026eff3, `time CI=true bash .ci/run`), the
# longest test after the README's numbers:
# ctest runs every 3rd offset there (from a random phase, so runs cover
# different offsets; every line's first byte and newline always) and every
# 23rd under sanitizers.  The whole campaign: run the binary itself, whose
# default is every offset (`build-test/test_audit_attack`, README "Testing").
add_executable(test_audit_attack tests/test_audit_attack.c)
target_compile_options(test_audit_attack PRIVATE ${WT_WARN})
target_compile_definitions(test_audit_attack PRIVATE WT_TEST_DATA="${CMAKE_SOURCE_DIR}/tests/data")
target_link_libraries(test_audit_attack PRIVATE wt PkgConfig::CMOCKA)
add_test(NAME unit_audit_attack COMMAND test_audit_attack)
set_tests_properties(unit_audit_attack PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
if(WT_SANITIZE)
  set_tests_properties(unit_audit_attack PROPERTIES ENVIRONMENT "WT_AUDIT_MUTATION_STRIDE=23")
else()
  set_tests_properties(unit_audit_attack PROPERTIES ENVIRONMENT "WT_AUDIT_MUTATION_STRIDE=3")
endif()

# audit_writer: appends to a log and prints each acknowledged seq (the crash
# loop's and the fault tests' writer; also --verify / --recover a log)
add_executable(audit_writer tests/audit_writer.c)
target_compile_options(audit_writer PRIVATE ${WT_WARN})
target_link_libraries(audit_writer PRIVATE wt)

# audit_crash: >= 500 kill -9 of the writer at random moments, then recovery,
# verification and every acknowledged entry (WT_CRASH_ITERATIONS)
add_executable(audit_crash tests/audit_crash.c)
target_compile_options(audit_crash PRIVATE ${WT_WARN})
target_link_libraries(audit_crash PRIVATE wt)
add_test(NAME audit_crash COMMAND audit_crash $<TARGET_FILE:audit_writer>)
set_tests_properties(audit_crash PROPERTIES TIMEOUT 600)

# audit_faults: a full tmpfs (root only; skipped otherwise) and libfiu's
# fiu-run failing fdatasync / write / fsync (skipped: 77, without fiu-run)
add_test(NAME audit_faults COMMAND sh ${CMAKE_SOURCE_DIR}/tests/audit_faults.sh
         $<TARGET_FILE:audit_writer>)
set_tests_properties(audit_faults PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
