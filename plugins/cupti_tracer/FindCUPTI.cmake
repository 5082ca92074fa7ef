# Finds CUPTI (headers and libcupti) in a CUDA toolkit or in the nvidia-cuda-cupti wheel.
# Hints, in order: FUSESCOPE_CUPTI_ROOT (cache or environment), CUPTI_ROOT, CUDAToolkit_ROOT,
# CUDA_HOME, /usr/local/cuda. The wheel layout is <site-packages>/nvidia/cuda_cupti/{include,lib}
# (CUDA 12) or <site-packages>/nvidia/cu13/{include,lib} (CUDA 13); pass that folder as the root.
# Defines CUPTI_FOUND and the imported target CUPTI::cupti.

set(_cupti_hints ${FUSESCOPE_CUPTI_ROOT} $ENV{FUSESCOPE_CUPTI_ROOT} ${CUPTI_ROOT} $ENV{CUPTI_ROOT}
                 ${CUDAToolkit_ROOT} $ENV{CUDAToolkit_ROOT} $ENV{CUDA_HOME} /usr/local/cuda)

find_path(CUPTI_INCLUDE_DIR cupti.h HINTS ${_cupti_hints} PATH_SUFFIXES include extras/CUPTI/include)
# cupti.h includes cuda.h; a wheel keeps it in the sibling cuda_runtime package (CUDA 12).
find_path(CUPTI_CUDA_INCLUDE_DIR cuda.h
          HINTS ${CUPTI_INCLUDE_DIR} ${_cupti_hints} ${CUPTI_INCLUDE_DIR}/../../cuda_runtime/include
          PATH_SUFFIXES include)
# Wheels ship only the versioned file name, hence libcupti.so.13 / .12.
find_library(CUPTI_LIBRARY NAMES cupti libcupti.so.13 libcupti.so.12
             HINTS ${_cupti_hints} PATH_SUFFIXES lib64 lib extras/CUPTI/lib64)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUPTI REQUIRED_VARS CUPTI_LIBRARY CUPTI_INCLUDE_DIR CUPTI_CUDA_INCLUDE_DIR)

if(CUPTI_FOUND AND NOT TARGET CUPTI::cupti)
  add_library(CUPTI::cupti SHARED IMPORTED)
  set_target_properties(CUPTI::cupti PROPERTIES
    IMPORTED_LOCATION "${CUPTI_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CUPTI_INCLUDE_DIR};${CUPTI_CUDA_INCLUDE_DIR}")
endif()
mark_as_advanced(CUPTI_INCLUDE_DIR CUPTI_CUDA_INCLUDE_DIR CUPTI_LIBRARY)
