#!/usr/bin/env node
'use strict';
// npx toolsieve-gateway --upstream https://api.example.com/v1 [--port 8080] [--mode prompt] ...
// The flags and environment variables are listed by --help; the logic is in src/server.js.
require('../src/server').main();
