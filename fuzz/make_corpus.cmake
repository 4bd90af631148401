# Writes one seed per shipped input: "<path relative to SOURCE_DIR>\n<the file's bytes>" (fuzz/loaders_fuzz.cc).
file(MAKE_DIRECTORY ${OUT})
file(GLOB_RECURSE inputs RELATIVE ${SOURCE_DIR}
     ${SOURCE_DIR}/scenarios/*.toml ${SOURCE_DIR}/topologies/*.toml ${SOURCE_DIR}/kernels/calibration/*.json
     ${SOURCE_DIR}/tests/data/hf/*.json ${SOURCE_DIR}/tests/data/ds/*.json)
foreach(rel ${inputs})
  file(READ ${SOURCE_DIR}/${rel} bytes)
  string(MAKE_C_IDENTIFIER ${rel} name)
  file(WRITE ${OUT}/${name} "${rel}\n${bytes}")
endforeach()

# Seeds at the nesting bound (model/io/toml_nesting.h): the default scenario with a dotted key, a table
# header and inline tables of tens of thousands of levels (68 KB, as the input that overflowed toml++'s
# stack), so that mutations start from long keys rather than growing them from a few bytes.
file(READ ${SOURCE_DIR}/scenarios/default.toml scenario)
string(REPEAT ".a" 35000 parts)
file(WRITE ${OUT}/deep_dotted_key "scenarios/default.toml\n${scenario}\na${parts} = 1\n")
file(WRITE ${OUT}/deep_table_header "scenarios/default.toml\n${scenario}\n[a${parts}]\nx = 1\n")
string(REPEAT "{a.a = " 2000 open)
string(REPEAT "}" 2000 close)
file(WRITE ${OUT}/deep_inline_tables "topologies/dgx_h100_8x400g.toml\nx = ${open}1${close}\n")
