/**
 * A token id of a model's vocabulary. The same shape as node-llama-cpp's `Token` (a number with a brand), so the
 * loader passes its tokens in and takes the steers' biases out without a conversion, while this room imports no
 * node-llama-cpp: its rules are tested on text and plain numbers alone.
 */
export type Token = number & { __token: never };
