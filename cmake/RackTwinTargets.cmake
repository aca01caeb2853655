# Per-target settings shared by every RackTwin library and program (no global CMAKE_CXX_FLAGS).
function(racktwin_target_defaults target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wcast-align -Wunused -Woverloaded-virtual
                                           -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough
                                           # GCC 12 reports false -Wrestrict positives inside
                                           # std::string at -O3 (GCC bug 105329).
                                           $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>)
  if(RACKTWIN_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(RACKTWIN_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer
                                             -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
  if(RACKTWIN_FUZZ)
    # Coverage for libFuzzer without its main(); the fuzz targets themselves link -fsanitize=fuzzer.
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link,address,undefined
                                             -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

# A library of one layer: public headers in include/, private code in src/.
function(racktwin_add_library target)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_LINKS;PRIVATE_LINKS" ${ARGN})
  add_library(${target} STATIC ${ARG_SOURCES})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
                                       PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_LINKS} PRIVATE ${ARG_PRIVATE_LINKS})
  racktwin_target_defaults(${target})
endfunction()
