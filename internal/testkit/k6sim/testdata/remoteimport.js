import { x } from 'https://example.com/lib.js';
export default function () {}
