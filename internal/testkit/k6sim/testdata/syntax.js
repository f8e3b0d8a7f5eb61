export default function () { return ; ) }
