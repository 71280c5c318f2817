{
  # Stride's native compute core (Node-API, plain C). Every .c file under src/ is compiled:
  # the simulator (src/sim) and the trace codec (src/codec) register themselves from addon.c.
  "targets": [
    {
      "target_name": "stride_core",
      "sources": ["<!@(node list-sources.js)"],
      "include_dirs": ["src"],
      "cflags": ["-O3", "-ffp-contract=off", "-std=gnu11", "-Wall", "-Wno-unused-parameter", "-fno-strict-aliasing", "-fvisibility=hidden"],
      # Hidden visibility: a call from one file of the core to another (in_uint, fold_add) is a
      # direct call, not one through the PLT that a shared object's exported symbols need (heat's
      # encoder 117 -> 102 ms, the C++ program's decoder 325 -> 317). Node finds the module by
      # napi_register_module_v1, which node_api.h exports explicitly.
      # node-gyp's defaults keep the frame pointer: one register fewer for the simulator's loop (1-3%).
      "cflags!": ["-O2", "-fno-omit-frame-pointer"],
      "defines": ["NAPI_VERSION=8"],
      # The codec's second stage (src/codec/brotli.c): Debian's libbrotli-dev. In Node the
      # symbols resolve to Node's own brotli (it exports them), the one zlib uses.
      "libraries": ["-lbrotlienc", "-lbrotlidec"]
    }
  ]
}
