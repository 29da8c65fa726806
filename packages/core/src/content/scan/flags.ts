/**
 * Bits an element's open event leaves on the scan's frame stack for its close event. The scan owns F_HARD;
 * each collector sets and reads its own bits.
 */
export const F_HARD = 1;
export const F_SOFT = 2;
export const F_PRE = 4;
export const F_ANCHOR = 8;
export const F_BLOCK = 16;
export const F_TITLE = 32;
export const F_H1 = 64;
export const F_PICTURE = 128;
export const F_FIGURE = 256;
