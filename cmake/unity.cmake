# envbisect_unity(TARGET BATCH_SIZE): compile TARGET's .cpp files in batches of BATCH_SIZE, each batch a
# generated file of #include lines.
#
# CMake's own UNITY_BUILD writes absolute paths into its batch files, so a copy of the tree elsewhere
# (scripts/mutate builds one) hashes every batch differently and ccache serves it nothing. These
# batches include their files by paths relative to the batch, which read the same in any copy whose
# build folder sits at the same depth: with CCACHE_BASEDIR (set by the launcher in CMakeLists.txt)
# the copy compiles from the tree's cache entries, and a changed file recompiles only its batch.
#
# Left out of the batches, compiled on their own: files marked SKIP_UNITY_BUILD_INCLUSION (file-local
# names a neighbour shares), files with their own COMPILE_DEFINITIONS, generated files, and
# anything that is not a .cpp file (generator expressions such as $<TARGET_OBJECTS:...>).
function(envbisect_unity target batch_size)
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  set(batch_dir ${CMAKE_CURRENT_BINARY_DIR}/${target}.batches)
  set(kept)
  set(included)
  foreach(source IN LISTS sources)
    if(source MATCHES "^\\$<" OR NOT source MATCHES "\\.cpp$")
      list(APPEND kept ${source})
      continue()
    endif()
    get_filename_component(path ${source} ABSOLUTE BASE_DIR ${source_dir})
    get_source_file_property(skip ${path} SKIP_UNITY_BUILD_INCLUSION)
    get_source_file_property(definitions ${path} COMPILE_DEFINITIONS)
    get_source_file_property(generated ${path} GENERATED)
    if(skip OR definitions OR generated)
      list(APPEND kept ${source})
      continue()
    endif()
    file(RELATIVE_PATH relative ${batch_dir} ${path})
    list(APPEND included ${relative})
  endforeach()
  # Batch i holds files i*batch_size .. (i+1)*batch_size-1 of `included`, the last one what remains.
  set(batches)
  list(LENGTH included total)
  set(first 0)
  set(index 0)
  while(first LESS total)
    list(SUBLIST included ${first} ${batch_size} members)
    set(content "")
    foreach(relative IN LISTS members)
      string(APPEND content "#include \"${relative}\"\n")
    endforeach()
    file(CONFIGURE OUTPUT ${batch_dir}/batch_${index}.cpp CONTENT "${content}" @ONLY)
    list(APPEND batches ${batch_dir}/batch_${index}.cpp)
    math(EXPR first "${first} + ${batch_size}")
    math(EXPR index "${index} + 1")
  endwhile()
  set_target_properties(${target} PROPERTIES SOURCES "${kept};${batches}")
endfunction()
