/**
 * `bytes` as a stream of views into it, `sliceBytes` at a time, each made only when the response
 * asks for the next (the adaptor asks once the socket has drained): many slow clients of one shared
 * buffer cost no copy of it, and each buffers no more than its socket allows.
 */
export function streamedBytes(bytes: Uint8Array, sliceBytes: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        controller.enqueue(bytes.subarray(at, at + sliceBytes));
        at += sliceBytes;
        if (at >= bytes.byteLength) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}
