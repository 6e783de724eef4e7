# What `cmake --install` puts under the prefix:
#   bin/gradcodec                                   (with GRADCODEC_BUILD_CLI)
#   lib/libgradcodec.so.*, lib/libgradcodec.a
#   include/gradcodec.h, include/gradcodec/*.hpp, include/gradcodec/version.h
#   lib/cmake/gradcodec/gradcodecConfig.cmake (+ version file and targets)
#   lib/pkgconfig/gradcodec.pc
include(CMakePackageConfigHelpers)
set(GRADCODEC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gradcodec)

install(TARGETS gradcodec_shared EXPORT gradcodecTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS gradcodec EXPORT gradcodecStaticTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET gradcodec_cli)
  install(TARGETS gradcodec_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# gradcodec/cuda.hpp declares the device-memory API, which only a GRADCODEC_CUDA build has.
if(GRADCODEC_CUDA)
  set(GRADCODEC_HEADER_EXCLUDE "")
else()
  set(GRADCODEC_HEADER_EXCLUDE PATTERN "cuda.hpp" EXCLUDE)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/libcodec/include/gradcodec
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp" ${GRADCODEC_HEADER_EXCLUDE})
install(FILES ${PROJECT_BINARY_DIR}/libcodec/include/gradcodec/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gradcodec)
install(FILES ${PROJECT_SOURCE_DIR}/capi/include/gradcodec.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT gradcodecTargets NAMESPACE gradcodec:: DESTINATION ${GRADCODEC_CMAKE_DIR})
install(EXPORT gradcodecStaticTargets NAMESPACE gradcodec:: DESTINATION ${GRADCODEC_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gradcodecConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gradcodecConfig.cmake INSTALL_DESTINATION ${GRADCODEC_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gradcodecConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gradcodecConfig.cmake
              ${PROJECT_BINARY_DIR}/gradcodecConfigVersion.cmake
  DESTINATION ${GRADCODEC_CMAKE_DIR})

# cuFFT is loaded at run time (dlopen), so consumers link cudart alone: from the directory
# where CMake found the libcudart_static.a this build linked (CUDA::cudart_static), wherever
# the toolkit keeps it (/usr/local/cuda/lib64, a distribution's multiarch directory...). A build
# without GRADCODEC_CUDA names no CUDA library and no CUDA directory.
set(GRADCODEC_PC_CUDA_LIBS "")
if(GRADCODEC_CUDA)
  if(CUDA_cudart_static_LIBRARY)
    get_filename_component(GRADCODEC_CUDART_DIR "${CUDA_cudart_static_LIBRARY}" DIRECTORY)
  else()
    set(GRADCODEC_CUDART_DIR "${CUDAToolkit_LIBRARY_DIR}")
  endif()
  set(GRADCODEC_PC_CUDA_LIBS "-L${GRADCODEC_CUDART_DIR} -lcudart_static -ldl -lrt")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/gradcodec.pc.in ${PROJECT_BINARY_DIR}/gradcodec.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gradcodec.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
