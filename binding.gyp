{
  "targets": [
    {
      "target_name": "agentwrap_relay",
      "sources": ["src/native/relay.c", "src/native/program_status.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "libraries": ["-lpthread"]
    }
  ]
}
