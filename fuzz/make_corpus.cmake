# Writes one seed per shipped input: "<path relative to SOURCE_DIR>\n<the file's bytes>" (fuzz/loaders_fuzz.cc).
file(MAKE_DIRECTORY ${OUT})
file(GLOB_RECURSE inputs RELATIVE ${SOURCE_DIR}
     ${SOURCE_DIR}/scenarios/*.toml ${SOURCE_DIR}/topologies/*.toml ${SOURCE_DIR}/kernels/calibration/*.json)
foreach(rel ${inputs})
  file(READ ${SOURCE_DIR}/${rel} bytes)
  string(MAKE_C_IDENTIFIER ${rel} name)
  file(WRITE ${OUT}/${name} "${rel}\n${bytes}")
endforeach()
