{
  "targets": [
    {
      "target_name": "agentwrap_relay",
      "sources": ["src/native/relay.c", "src/native/program_status.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "libraries": ["-lpthread"],
      "conditions": [
        ["OS=='mac'", {
          "xcode_settings": {
            "GCC_OPTIMIZATION_LEVEL": "2",
            "OTHER_CFLAGS": ["-Wall", "-Wextra", "-Wno-unused-parameter"],
            "MACOSX_DEPLOYMENT_TARGET": "10.15"
          }
        }]
      ]
    }
  ]
}
