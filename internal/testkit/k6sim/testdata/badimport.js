import { x } from 'lodash';
export default function () {}
