console.log("missing paren";
