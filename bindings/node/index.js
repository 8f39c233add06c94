// zarrgpu's IPC for Node.js (docs/ipc.md, "Node.js"): the addon built by
// `node-gyp rebuild` here (binding.gyp says how).
'use strict';
module.exports = require('./build/Release/zarrgpu_ipc.node');
