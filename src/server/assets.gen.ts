// placeholder
export const ASSETS: Readonly<Record<string, { type: string; body: string; etag: string }>> = {
  "/": { type: "text/html; charset=utf-8", body: "<!doctype html>", etag: '"x"' },
};
