// @ts-nocheck -- a Node helper for bench/tus_node.ts: a @tus/server peer on loopback.
import { createServer } from "node:http";
import { Server } from "@tus/server";
import { FileStore } from "@tus/file-store";

const dir = process.argv[2];
const tus = new Server({
  path: "/storage/v1/upload/resumable",
  datastore: new FileStore({ directory: dir }),
});
const http = createServer((req, res) => tus.handle(req, res));
http.listen(0, "127.0.0.1", () => console.log(`READY ${http.address().port}`));
process.stdin.resume();
process.stdin.on("end", () => http.close(() => process.exit(0)));
