// Collects a command's interleaved stdout and stderr up to a byte budget. Over budget it keeps the
// head and the tail, because a failing build or test run puts its verdict at the end, and marks
// the cut so the model knows output is missing.
export class CappedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  private totalBytes = 0;

  public constructor(maxBytes: number) {
    this.headLimit = Math.ceil(maxBytes / 2);
    this.tailLimit = maxBytes - this.headLimit;
  }

  public push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    const room = this.headLimit - this.headBytes;
    if (room > 0) {
      const taken = chunk.subarray(0, room);
      this.head.push(taken);
      this.headBytes += taken.length;
      chunk = chunk.subarray(taken.length);
    }
    if (chunk.length === 0 || this.tailLimit === 0) return;
    const joined = Buffer.concat([this.tail, chunk]);
    this.tail = joined.subarray(Math.max(0, joined.length - this.tailLimit));
  }

  public text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const omitted = this.totalBytes - this.headBytes - this.tail.length;
    if (omitted === 0) return head + this.tail.toString('utf8');
    return `${head}\n[output truncated: ${omitted} bytes omitted]\n${this.tail.toString('utf8')}`;
  }
}
