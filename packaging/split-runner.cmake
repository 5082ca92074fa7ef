# CPACK_PRE_BUILD_SCRIPTS: runs after the install into CPack's staging tree, before the .deb is
# made. Moves the LibTorch runner (and its folder) out to FUSESCOPE_RUNNER_STAGE, with its RPATH
# removed: it must find libtorch in the user's environment at run time, never in the builder's.
set(runner_dir "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/usr/lib/fusescope")
file(REMOVE_RECURSE "${FUSESCOPE_RUNNER_STAGE}")
if(EXISTS "${runner_dir}/fusescope-libtorch-runner")
  file(MAKE_DIRECTORY "${FUSESCOPE_RUNNER_STAGE}/usr/lib/fusescope")
  file(RENAME "${runner_dir}/fusescope-libtorch-runner"
       "${FUSESCOPE_RUNNER_STAGE}/usr/lib/fusescope/fusescope-libtorch-runner")
  file(RPATH_REMOVE FILE "${FUSESCOPE_RUNNER_STAGE}/usr/lib/fusescope/fusescope-libtorch-runner")
  file(GLOB left "${runner_dir}/*")
  if(NOT left)
    file(REMOVE_RECURSE "${runner_dir}")
  endif()
endif()
