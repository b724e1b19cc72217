# The installation: what `cmake --install <build> --prefix P` puts where, and the CMake package
# that lets other projects use it with find_package(rxt CONFIG REQUIRED) (docs/plugins.md,
# "Out-of-tree plugins"). Included by the top-level CMakeLists.txt after every target exists.
#
#   P/bin/rxt                                the command (apps/rxt installs it)
#   P/lib/librxt.so.2, librxt.so             the C ABI              -> rxt::rxt
#   P/lib/librxt_runtime.so.2, .so           the C ABI's runtime alone (abi/rxt_runtime.list) -> rxt::runtime
#   P/lib/rxt/plugins/*.so                   the standard plugins   (rxt_add_plugin installs them)
#   P/include/rxt/*.h, *.hpp                 the public headers     -> rxt::plugin (plugins)
#   P/include/rxt/plugin_support/*.h         the plugin SDK for C++ plugins (rule.h, generator.h, kernel_codec.h...)
#   P/lib/librxt_plugin_support.a                                   -> rxt::plugin_support
#   P/lib/cmake/rxt/                         rxtConfig.cmake, the exported targets, rxt_add_plugin()
#                                            (rxtAddPlugin.cmake, rxtPluginModule.cmake, rxtPlugin.map)
#   P/lib/python3/dist-packages/rxt/         the Python package (abi/python; it finds P/lib/librxt.so.2)
#
# Every path in the package is relative to the prefix it is found in, so an installation can
# be moved as a whole (tests/install checks this).
#
# The install component `runtime` (cmake --install B --component runtime) is what a device that
# only trains from trainer files needs: librxt_runtime.so, rxt/rxt.h, rxt_lib_dnnl (oneDNN's
# extern functions) and the package files, with which find_package(rxt COMPONENTS runtime) finds
# rxt::runtime (docs/deploy.md). Everything else is in the default component.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
include(RxtPlugin)  # RXT_PLUGIN_INSTALL_DIR

set(RXT_PACKAGE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/rxt")

# ---- What plugins build against: the headers (rxt::plugin) and the plugin SDK
# (rxt::plugin_support), both defined in abi/plugin_support.
set_target_properties(rxt_abi PROPERTIES EXPORT_NAME rxt)
set_target_properties(rxt_abi_runtime PROPERTIES EXPORT_NAME runtime)

# ---- Files
install(TARGETS rxt_abi rxt_plugin_headers rxt_plugin_support EXPORT rxtTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS rxt_abi_runtime EXPORT rxtRuntimeTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT runtime)
file(GLOB RXT_PUBLIC_HEADERS CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/abi/include/rxt/*.h ${CMAKE_SOURCE_DIR}/abi/include/rxt/*.hpp)
list(REMOVE_ITEM RXT_PUBLIC_HEADERS ${CMAKE_SOURCE_DIR}/abi/include/rxt/rxt.h)
install(FILES ${RXT_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rxt)
install(FILES ${CMAKE_SOURCE_DIR}/abi/include/rxt/rxt.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rxt COMPONENT runtime)
# The plugin SDK's headers (rxt/plugin_support/: rule.h, generator.h, kernel_codec.h...).
file(GLOB RXT_PLUGIN_SUPPORT_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/abi/include/rxt/plugin_support/*.h)
install(FILES ${RXT_PLUGIN_SUPPORT_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rxt/plugin_support)

# The Python package, pure Python over the C ABI: beside the library it loads.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/abi/python/rxt DESTINATION ${CMAKE_INSTALL_LIBDIR}/python3/dist-packages
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)

# ---- The package
install(EXPORT rxtTargets NAMESPACE rxt:: DESTINATION ${RXT_PACKAGE_INSTALL_DIR})
install(EXPORT rxtRuntimeTargets NAMESPACE rxt:: DESTINATION ${RXT_PACKAGE_INSTALL_DIR} COMPONENT runtime)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/rxtConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/rxtConfig.cmake
  INSTALL_DESTINATION ${RXT_PACKAGE_INSTALL_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR RXT_PLUGIN_INSTALL_DIR)
# 0.x releases: a minor release may change the plugin ABI, so only the same minor matches.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/rxtConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/rxtConfig.cmake ${CMAKE_BINARY_DIR}/cmake/rxtConfigVersion.cmake
        DESTINATION ${RXT_PACKAGE_INSTALL_DIR} COMPONENT runtime)
install(FILES ${CMAKE_SOURCE_DIR}/cmake/rxtAddPlugin.cmake
              ${CMAKE_SOURCE_DIR}/cmake/rxtPluginModule.cmake
              ${CMAKE_SOURCE_DIR}/cmake/rxtPlugin.map
        DESTINATION ${RXT_PACKAGE_INSTALL_DIR})
