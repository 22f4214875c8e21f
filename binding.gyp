{
  "targets": [
    {
      "target_name": "brain_fts",
      "type": "loadable_module",
      "product_extension": "node",
      "sources": ["src/native/brain_fts.c", "src/native/brain_topk.c", "src/native/brain_snippet.c"],
      "include_dirs": ["<!(node -p \"require('path').dirname(require.resolve('better-sqlite3/package.json'))\")/deps/sqlite3"],
      "cflags": ["-O2", "-ffp-contract=off", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "xcode_settings": { "OTHER_CFLAGS": ["-O2", "-ffp-contract=off", "-fvisibility=hidden"] },
      "conditions": [["OS=='linux'", { "libraries": ["-lm"] }]]
    }
  ]
}
